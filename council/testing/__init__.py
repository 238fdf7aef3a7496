"""Test doubles shipped with the package: the fake LLM upstream and scripted council members.

:mod:`.fake_llm` is a real HTTP server on 127.0.0.1 speaking the OpenAI,
Anthropic and Gemini APIs, with scripted replies and faults (OpenAI's
moderation endpoint and Llama Guard's replies: :mod:`.fake_moderation`);
:mod:`.scripted` plays members that answer, review and judge. Used by the
tests and the benchmarks; nothing in the product imports them.

Public: :mod:`.fake_llm` and :mod:`.scripted` are meant for other projects' tests
too (``python -m council.testing.scripted`` serves a scripted council).
"""

