"""Peer review's text layer: the sandboxed review prompt and the strict ballot parser.

Pure functions over strings and rubrics: they know no provider, no HTTP and
no storage. A bad ballot is data (a parse result with its reason), never an
exception.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.review.ballot import BallotParse, parse_ballot
from council.review.prompt import (
    Candidate,
    ReviewTask,
    labels_for,
    read_review_task,
    render_review_prompt,
    shown_to_reviewers,
)
from council.review.sandbox import fence, fill_template, neutralize, new_nonce, render_prompt

__all__ = ["BallotParse", "Candidate", "ReviewTask", "fence", "fill_template", "labels_for", "neutralize", "new_nonce",
           "parse_ballot", "read_review_task", "render_prompt", "render_review_prompt", "shown_to_reviewers"]
