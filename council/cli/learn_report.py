"""The text of ``council rank --learn``: learned judge weights, cross-validated accuracy and the learning curve.

Printed after the tables of :mod:`council.cli.rank_command`; the figures
come from :class:`council.ranking.learning_report.LearningReport` (the JSON
form is that report's own, under ``learning``).
"""

from __future__ import annotations

import math

from council.cli.common import text_table
from council.ranking import LearningReport


def _figure(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def render_learning(learning: LearningReport) -> str:
    """The learning section as plain-text tables."""
    if not learning.labelled_items:
        return ("Learned weights: no labelled item matched the ballots, so nothing was learned; the default "
                "weights ranked every item, unchanged.")
    out = [f"Learned weights ({learning.labelled_items} labelled items; prior worth {learning.prior_labels:g} "
           "items, centred on the default weights; 95% bootstrap interval over the labelled items)"]
    out += text_table(["judge", "default", "learned", "95% interval"], [
        [w.judge, _figure(w.default, 2), _figure(w.learned, 2), f"{_figure(w.low, 2)} - {_figure(w.high, 2)}"]
        for w in learning.weights])
    validation = (f"{learning.folds}-fold cross-validation for the learned weights, never scored on the items "
                  "they were fitted on" if learning.folds >= 2 else
                  "no cross-validation of the learned weights: it needs 2 labelled items")
    out += ["", f"Accuracy on the labelled items ({validation}; top pick right; 95% bootstrap interval)"]
    out += text_table(["who", "accuracy", "95% interval", "items"], [
        [row.name if row.kind != "judge" else f"judge {row.name}", _figure(row.accuracy),
         f"{_figure(row.low)} - {_figure(row.high)}", str(row.items)] for row in learning.cross_validated])
    if learning.curve:
        out += ["", "Learning curve (mean accuracy on the other labelled items over random subsets of that many "
                    "labels)"]
        out += text_table(["labels", "subsets", "held out", "learned", "default", "learned - default"], [
            [str(p.labels), str(p.repeats), str(p.held_out), _figure(p.learned), _figure(p.default),
             f"{p.gain:+.3f}"] for p in learning.curve])
        out.append(f"the learned weights beat the default from {learning.labels_needed} labels on"
                   if learning.labels_needed is not None else
                   "the learned weights did not beat the default at every label count measured from any count on")
    else:
        out += ["", "Learning curve: too few labelled items (it needs 10 to train and 10 more to test)"]
    return "\n".join(out)
