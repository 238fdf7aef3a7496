"""Which OpenAI parameters each model honours: the council's refusals and a pass-through member's.

Every standard parameter is declared in :class:`ChatCompletionRequest` and
either honoured or refused with a 400 naming it; none is silently dropped.
:func:`council_request_problems` says what the council model cannot honour,
:func:`member_request_problems` what a ``member/NAME`` pass-through cannot.
Reading and typing the body is :mod:`council.server.schema`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence

from council.server.schema import ApiError, ChatCompletionRequest


def _refuse(param: str, why: str) -> ApiError:
    return ApiError(400, f"{param}: {why}", param=param, code="unsupported_parameter")


def _output_problems(request: ChatCompletionRequest, council: bool) -> None:
    """The refusals shared by both models: what Council cannot carry back or does not forward."""
    source = "the council's answer is written from several models' answers" if council else \
        "a member's answer is relayed as text"
    if request.logprobs:
        raise _refuse("logprobs", f"{source} and carries no token log probabilities; leave logprobs unset or false")
    if request.top_logprobs:
        raise _refuse("top_logprobs", f"{source} and carries no token log probabilities; leave top_logprobs unset")
    if request.logit_bias:
        why = ("token ids differ between the members' models" if council
               else "token biases are not forwarded to members")
        raise _refuse("logit_bias", f"{why}; leave logit_bias unset or empty")
    if request.audio is not None:
        raise _refuse("audio", "Council answers in text only; audio output is not supported")
    if request.modalities is not None and request.modalities != ["text"]:
        raise _refuse("modalities", 'Council answers in text only; modalities must be ["text"] or unset')
    if request.prediction is not None:
        raise _refuse("prediction", "predicted outputs are not supported")
    if not council and request.functions:
        raise _refuse("functions", "legacy function calling is not supported; leave functions unset")
    if not council and isinstance(request.function_call, dict):
        raise _refuse("function_call", "legacy function calling is not supported; a function call cannot be forced")
    if request.web_search_options is not None:
        raise _refuse("web_search_options", "web search is not supported")
    if request.verbosity is not None:
        why = ("the council's answer is the chairman's synthesis, whose length follows its own prompt" if council
               else "verbosity is not forwarded to members")
        raise _refuse("verbosity", f"{why}; leave verbosity unset")


def council_request_problems(request: ChatCompletionRequest) -> None:
    """Refuse (400, naming the parameter) what the council model cannot honour; return if all is honoured.

    Honoured: ``temperature``, ``top_p``, ``max_tokens`` /
    ``max_completion_tokens``, ``seed``, ``stop``, ``presence_penalty``,
    ``frequency_penalty``, ``user`` and ``reasoning_effort``: they travel
    in :meth:`ChatCompletionRequest.params` to the members. The council is
    many members on different wire formats, so a setting is sent to each
    member whose wire format has it and left out for the others (the
    caller sends ``params.without(provider.unsupported_params(params))`` to
    each member): refusing it because one member lacks it would make it
    unusable on any mixed council, and the answer, a synthesis of several
    answers, is shaped by such a setting only approximately anyway. For
    example ``reasoning_effort`` reaches the OpenAI-format members, ``user``
    the OpenAI ones (as ``user``) and the Anthropic ones (as
    ``metadata.user_id``), the penalties the OpenAI and Gemini ones.

    ``response_format`` travels in the params too, and the run plan
    (:meth:`council.Council.plan`) refuses what a council run cannot give.

    Refused unless left at the default: ``logprobs``,
    ``top_logprobs``, ``logit_bias``, ``audio``, ``modalities`` other than
    ``["text"]``, ``prediction``, ``web_search_options`` and ``verbosity``
    (``n`` other than 1 is refused by :func:`parse_request`).

    Accepted as metadata that asks nothing of the answer: ``metadata``,
    ``store``, ``service_tier``, ``prompt_cache_key``,
    ``prompt_cache_retention``, ``safety_identifier``, ``stream_options``.

    Tools (``tools``, legacy ``functions``, ``parallel_tool_calls``) are
    accepted and not called: the OpenAI API lets a model answer in text
    when it is free to, and chat apps such as Open WebUI attach their
    builtin tools to every request. The council handler counts them in
    ``x-council-tools-ignored`` and refuses only a choice that forces a
    call (:meth:`ChatCompletionRequest.forced_tool_param`), naming the
    pass-through models, which relay tools.
    """
    _output_problems(request, council=True)


def member_request_problems(request: ChatCompletionRequest, unsupported: Sequence[str],
                            wire_format: str | None = None) -> None:
    """Refuse (400, naming the parameter) what a ``member/NAME`` pass-through cannot honour.

    ``unsupported`` is the member's ``provider.unsupported_params(request.params())``
    (the request's own params, not merged with the member's configured
    ones), ``wire_format`` its ``provider.name``; the first unsupported
    parameter is refused with both named. Also refused, whatever the member:
    what a relayed answer cannot carry back or Council does not forward
    (``logprobs``, ``top_logprobs``, ``logit_bias``, ``audio``,
    ``modalities``, ``prediction``, legacy ``functions``,
    ``web_search_options``, ``verbosity``; ``n`` other than 1 in :func:`parse_request`).
    """
    _output_problems(request, council=False)
    if not unsupported:
        return
    name = unsupported[0]
    param = name
    if name == "max_tokens" and request.max_completion_tokens is not None:
        param = "max_completion_tokens"
    member = request.model.removeprefix("member/")
    speaks = f"speaks the {wire_format} API" if wire_format else "has an API"
    what = param
    if name == "response_format" and request.response_format is not None:
        what = f"response_format of type {request.response_format['type']}"
    raise _refuse(param, f"member {member!r} {speaks}, which has no {what}")
