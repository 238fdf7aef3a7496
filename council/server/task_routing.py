"""Where a chat app's side task goes: one member by default, never a whole council run unless asked.

Open WebUI sends, with every question, a title request and, once answered,
tags and follow-up suggestions, all to the model the user picked. Run
through the council each would cost a full run (every member answering and
reviewing); they need one quick answer. ``server.task_model`` says where
they go:

* ``auto`` (the default): one member of the council asked for (the preset's
  members when a preset is asked for): its chairman if it has one, else the
  cheapest priced member (input plus output price per million tokens), else
  the first;
* ``council``: the council, a full run for each;
* ``member/NAME``: that member.

Which requests are side tasks is :func:`council.server.schema.is_side_task`'s
narrow rule. This module knows the config and presets; it sends nothing.
"""

from __future__ import annotations

from council.config import CouncilConfig, MemberConfig
from council.presets import CouncilPreset

TASK_MODEL_HEADER = "x-council-task-model"


def _price_per_mtok(member: MemberConfig) -> float | None:
    price = member.price
    return None if price is None else price.input_per_mtok + price.output_per_mtok


def side_task_member(config: CouncilConfig, preset: CouncilPreset | None = None) -> str | None:
    """The member that answers a side task sent to the council (or to ``preset``); None: run the council."""
    setting = config.server.task_model
    if setting == "council":
        return None
    if setting != "auto":
        return setting.removeprefix("member/")
    names = list(preset.members) if preset is not None and preset.members else [m.name for m in config.members]
    chairman = preset.chairman_for(config.chairman) if preset is not None else config.chairman
    if chairman is not None and chairman in names:
        return chairman
    priced = [(cost, index, m.name) for index, m in enumerate(config.members)
              if m.name in names and (cost := _price_per_mtok(m)) is not None]
    if priced:
        return min(priced)[2]
    return names[0]
