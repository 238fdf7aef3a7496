"""A council member whose replies a Python function writes: the test double a user hands to ``Council``.

In the spirit of pydantic-ai's ``FunctionModel``: :class:`FunctionMember`
is a member config (``provider: simulated``, so it makes no network call)
that carries a reply function. The function is called with the messages
the member was sent and a :class:`~council.simulation.calls.CallInfo`
saying which member is asked and for what stage (read back from Council's
prompts, :func:`~council.simulation.calls.read_call`); it returns the reply
text, or a :class:`~council.simulation.calls.FunctionReply`. It may be
sync or async.

A function that raises is a failed call, recorded with its reason as a
bad upstream call is (a :class:`~council.errors.ProviderError` it raises
goes through as it is, to play a timeout or a rate limit); a bad reply
(empty text, an unreadable ballot) is data, handled as a model's would be.

The function lives on the member, never in the config's data: it is not
dumped, not hashed, and no YAML file can name one. Knows the simulated
provider's behaviour hook; never transports, runs or storage.
"""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import PrivateAttr

from council.config import MemberConfig, Price
from council.errors import ProviderError
from council.providers.base import Reply
from council.providers.simulated import SimulatedBehaviour, word_usage
from council.simulation.calls import CallInfo, FunctionReply, ReplyFunction, read_call
from council.simulation.honest import Flagger, Judge, plays_every_role
from council.types import ChatMessage, GenerationParams


def _name_of(function: object) -> str:
    return str(getattr(function, "__name__", type(function).__name__))


class FunctionMember(MemberConfig):
    """A member whose replies ``reply(messages, info)`` writes; see the module's docstring.

    ``model`` (default ``function:<the function's name>``) is what results
    show as its model. ``timeout_s``, ``vision``, ``price`` and ``params``
    are a member's usual settings: ``params.max_tokens`` and ``stop`` cut a
    string reply as a model would; a :class:`FunctionReply` is taken as written.
    A sync function runs on the event loop: one that waits should be ``async``.
    """

    _reply: ReplyFunction = PrivateAttr()

    def __init__(self, name: str, reply: ReplyFunction, /, *, model: str | None = None, timeout_s: float | None = None,
                 vision: bool = True, price: Price | None = None, params: GenerationParams | None = None) -> None:
        super().__init__(name=name, provider="simulated", model=model or f"function:{_name_of(reply)}",
                         timeout_s=timeout_s, vision=vision, price=price, params=params or GenerationParams())
        self._reply = reply

    @classmethod
    def answering(cls, name: str, answer: str | ReplyFunction, *, score: Judge | None = None,
                  flag: Flagger | None = None, **settings: Any) -> FunctionMember:
        """A member that answers with ``answer`` (a text or a reply function) and plays every other role straight.

        Its reviews score each answer by ``score(text)``, 1 to 10 (default:
        a point each ten characters); it keeps its answer in a second round,
        passes every answer as the safety classifier, and as the chairman
        gives the top-ranked answer (see
        :func:`~council.simulation.honest.plays_every_role`). ``flag(text)``
        says what it flags in an answer it reviews (:class:`ReviewFlags`:
        harmful help, text aimed at the reviewers); by default nothing.
        ``settings`` are the constructor's (``model``, ``price``, ...).
        """
        settings.setdefault("model", f"function:{_name_of(answer) if callable(answer) else 'answering'}")
        return cls(name, plays_every_role(answer, score, flag), **settings)

    @property
    def reply(self) -> ReplyFunction:
        """The reply function, to wrap in another (a test that changes one stage's replies)."""
        return self._reply

    def behaviour(self) -> SimulatedBehaviour:
        """How the simulated provider plays this member: through its function."""
        return SimulatedBehaviour(self._write)

    async def _write(self, messages: list[ChatMessage]) -> str | Reply:
        info = CallInfo(member=self.name, stage=read_call(messages).stage)
        try:
            written = self._reply(messages, info)
            if inspect.isawaitable(written):
                written = await written
        except ProviderError:
            raise
        except Exception as error:
            raise self._failure(f"raised {type(error).__name__}: {error}") from error
        if isinstance(written, str):
            return written
        if isinstance(written, FunctionReply):
            return Reply(written.text, written.finish_reason or "stop",
                         written.usage or word_usage(messages, written.text), f"simulated/{self.model}")
        raise self._failure(f"returned a {type(written).__name__}, not a str or a FunctionReply")

    def _failure(self, what: str) -> ProviderError:
        return ProviderError(f"the reply function {_name_of(self._reply)} {what}",
                             provider="simulated", model=self.model, member=self.name)


__all__ = ["FunctionMember"]
