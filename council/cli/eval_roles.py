"""Who a ``council eval`` run calls, from its options: the mode, the members, the evaluator, the preset.

Checked before anything runs, so a wrong name stops the command with a usage
error that names the choices; a floating model alias is refused unless
``--allow-floating-models``. Knows nothing of how the run goes.
"""

from __future__ import annotations

import argparse
from typing import Any, Literal

from council.cli.common import UsageError

EvalMode = Literal["council", "judge"]


def choose_members(args: argparse.Namespace, config: Any) -> tuple[EvalMode, list[str], str, str | None]:
    names = [m.name for m in config.members]

    def known(name: str, flag: str) -> str:
        if name not in names:
            raise UsageError(f"{flag}: {name!r} is not a member; members are: {', '.join(names)}")
        return name

    preset = chosen_preset(args, config)
    default = list(preset.members) if preset is not None and preset.members else names
    members = [known(m.strip(), "--members") for m in args.members.split(",") if m.strip()] if args.members else default
    if not members:
        raise UsageError("--members: no member chosen")
    if args.judge is not None:
        if args.evaluator is not None:
            raise UsageError("--evaluator is for council mode; in judge mode the judge scores every answer")
        judge = known(args.judge, "--judge")
        return "judge", members, judge, judge
    evaluator = known(args.evaluator, "--evaluator") if args.evaluator else (config.chairman or names[0])
    return "council", members, evaluator, None


def chosen_preset(args: argparse.Namespace, config: Any) -> Any:
    """The preset ``--preset`` names (None without it); a usage error names the presets on offer."""
    if args.preset is None:
        return None
    if args.judge is not None:
        raise UsageError("--preset is for council mode; in judge mode every member answers and the judge scores them")
    if args.preset not in config.councils:
        offered = ", ".join(config.councils) or "none are configured (councils: in the config)"
        raise UsageError(f"--preset: unknown preset {args.preset!r}; presets: {offered}")
    return config.councils[args.preset]


def refuse_floating(args: argparse.Namespace, config: Any, mode: EvalMode, members: list[str], evaluator: str,
                     rubrics: bool) -> None:
    """Refuse a model id that is a floating alias, unless --allow-floating-models: its results can move."""
    from council.evals import floating_models

    if args.allow_floating_models:
        return
    called = [*members, evaluator]
    if mode == "council":
        called += [name for name in (config.chairman, config.safety.llm_member) if name]
    if rubrics:  # every member reviews for a rubric verdict
        called += [m.name for m in config.members]
    floating = floating_models(config, called)
    if floating:
        raise UsageError(f"floating model alias: {', '.join(floating)}; the evaluation spec forbids floating "
                         f"aliases in benchmark runs because their results can change when the alias moves. Pin a "
                         f"dated model version in the config, or pass --allow-floating-models")
