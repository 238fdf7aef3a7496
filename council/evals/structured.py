"""Samples with an ``output_schema``: how their answers are asked for, and whether they validate.

A council sample asks the run for the schema (``RunRequest.output_type``);
a judged member is asked the way its wire format allows, with the same one
retry a council member gets, so the two are compared on equal terms. The
sample's ``schema_valid`` is the answer validated once more here, whoever
wrote it; per member of a council, a candidate that validated counts as
valid and one recorded ``invalid_output`` or ``refused`` as not (members
that never answered are left out).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence

from council.evals.dataset import Sample
from council.pipeline.structured import OutputSpec, as_text, ask_structured, structured_request, supports_output
from council.providers import Provider
from council.result import CouncilResult
from council.types import ChatMessage, Completion, GenerationParams


def schema_valid(sample: Sample, answer: str | None) -> bool | None:
    """Whether ``answer`` is a JSON value valid for the sample's schema (None: the sample asks for prose)."""
    if sample.output_schema is None:
        return None
    return answer is not None and OutputSpec.of(sample.output_schema).read(answer)[1] is None


async def structured_member_answer(
        provider: Provider, sample: Sample, params: GenerationParams | None,
        call: Callable[[list[ChatMessage], GenerationParams | None], Awaitable[Completion]]) -> Completion:
    """One member's answer to a structured sample: asked natively or in the prompt, retried once when invalid.

    The completion's content is the valid JSON value, formatted as a council
    run's is, or the last reply as it came when it never validated.
    """
    assert sample.output_schema is not None
    spec = OutputSpec.of(sample.output_schema)
    messages, asked = structured_request(spec, list(sample.messages), params, supports_output(provider))
    reply = await ask_structured(spec, messages, lambda conversation: call(conversation, asked))
    if reply.error is not None:
        return reply.completion
    return reply.completion.model_copy(update={"content": as_text(reply.value)})


def candidates_valid(result: CouncilResult | None) -> dict[str, bool]:
    """Per member of a structured council run: whether its candidate validated (members that failed otherwise: out)."""
    if result is None or result.output_schema is None:
        return {}
    found = {}
    for answer in result.answers:
        if answer.status != "failed":
            found[answer.member] = True
        elif answer.error is not None and answer.error.reason in ("invalid_output", "refused"):
            found[answer.member] = False
    return found


def member_valid_rates(per_sample: Sequence[dict[str, bool]]) -> dict[str, float]:
    """Each member's share of valid candidates over the samples where it answered."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for sample in per_sample:
        for member, valid in sample.items():
            counts[member][0] += int(valid)
            counts[member][1] += 1
    return {member: valid / total for member, (valid, total) in sorted(counts.items())}
