"""Peer review's text layer: the sandboxed review prompt and the strict ballot parser.

Pure functions over strings and rubrics: they know no provider, no HTTP and
no storage. A bad ballot is data (a parse result with its reason), never an
exception.
"""

from council.review.ballot import BallotParse, parse_ballot
from council.review.prompt import (
                                   Candidate,
                                   ReviewTask,
                                   labels_for,
                                   neutralize,
                                   new_nonce,
                                   read_review_task,
                                   render_review_prompt,
                                   shown_to_reviewers,
)

__all__ = ["BallotParse", "Candidate", "ReviewTask", "labels_for", "neutralize", "new_nonce", "parse_ballot",
           "read_review_task", "render_review_prompt", "shown_to_reviewers"]
