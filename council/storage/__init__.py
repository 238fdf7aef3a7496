"""Where runs, rubrics, calibration history and conversations are kept (SQLite today).

:mod:`.store` holds runs written stage by stage, the rubric registry and
reviewer history; :mod:`.conversations` the web page's conversations;
:mod:`.sqlite` the table-set base they share. Stores results it is given:
knows nothing of how a council runs.
"""

from council.errors import StorageError
from council.storage.conversations import Conversation, ConversationError, ConversationStore
from council.storage.store import RunSummary, Store

__all__ = ["Conversation", "ConversationError", "ConversationStore", "RunSummary", "StorageError", "Store"]
