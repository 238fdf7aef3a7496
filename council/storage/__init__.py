"""Where runs, rubrics, calibration history, conversations and evaluations are kept: SQLite or PostgreSQL.

:mod:`.database` is the one door to either backend (:mod:`.sqlite`,
:mod:`.postgres`), :mod:`.schema` its migrations, :mod:`.group_commit` the
writer that batches what runs write as they go. :mod:`.store` holds runs
(one compressed row per stage, :mod:`.run_records`), the rubric registry
and reviewer history; :mod:`.conversations` the web page's conversations.
When the database is down or locked, writes wait in :mod:`.backlog` and
land when it is back.
Stores the results it is given: knows nothing of how a council runs.

Internal: its modules and names may change in any release; the public API is :mod:`council`.
"""

from council.errors import StorageError
from council.storage.backlog import StorageUnavailableError
from council.storage.conversations import Conversation, ConversationError, ConversationStore
from council.storage.store import RunSummary, Store

__all__ = ["Conversation", "ConversationError", "ConversationStore", "RunSummary", "StorageError",
           "StorageUnavailableError", "Store"]
