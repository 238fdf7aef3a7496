"""The rubric registry: every registered version kept, and a latest pointer per rubric id (as dataknobs keeps it).

A rubric is registered under its id and version; a version's content never
changes (a changed rubric needs a new version). Beside the versions, each
id has a *latest pointer* (the ``rubric_latest`` table) naming the version
that ``id`` alone resolves to: the newest by semantic version that is not
withdrawn.

* ``delete_rubric("id")`` removes the pointer, as dataknobs' ``delete`` does:
  ``id`` alone no longer resolves and the id leaves the listing, while
  every version stays stored, readable and usable as ``id@version``, for
  audit. Registering any version of the id again restores the pointer.
* ``delete_rubric("id@version")`` withdraws one version (it stays readable
  as ``id@version``); the pointer moves to the newest version left.
"""

from __future__ import annotations

from datetime import UTC, datetime

from council.errors import StorageError
from council.rubrics.model import Rubric
from council.storage.database import Session
from council.storage.schema import version_key
from council.storage.tables import Tables


def _repoint(session: Session, rubric_id: str, *, restore: bool) -> None:
    """Point ``rubric_id`` at its newest version not withdrawn (none left: no pointer).

    Without ``restore`` an id whose pointer was removed stays without one.
    """
    if not restore and session.fetchone("SELECT 1 FROM rubric_latest WHERE rubric_id = ?", (rubric_id,)) is None:
        return
    versions = [row[0] for row in session.fetchall(
        "SELECT version FROM rubrics WHERE rubric_id = ? AND deleted_at IS NULL", (rubric_id,))]
    if not versions:
        session.execute("DELETE FROM rubric_latest WHERE rubric_id = ?", (rubric_id,))
        return
    session.execute("INSERT INTO rubric_latest VALUES (?, ?, ?) ON CONFLICT (rubric_id) DO UPDATE "
                    "SET version = excluded.version, updated_at = excluded.updated_at",
                    (rubric_id, max(versions, key=version_key), datetime.now(UTC).isoformat()))


class RubricRegistryTables(Tables):
    """The rubric registry's operations, on the run store's database."""

    def register_rubric(self, rubric: Rubric) -> bool:
        """Keep ``rubric`` under its id and version, and point its id at the newest version; False if nothing changed.

        Registering a version already kept as is changes nothing, unless its
        id had lost its pointer or the version was withdrawn: both come back.
        Raises :class:`StorageError` when the same id and version is
        registered with different content: a changed rubric needs a new version.
        """
        digest = rubric.content_hash()
        row = (rubric.id, rubric.version, digest, rubric.model_dump_json(by_alias=True), datetime.now(UTC).isoformat())

        def register(session: Session) -> bool:
            pointer_before = session.fetchone("SELECT version FROM rubric_latest WHERE rubric_id = ?", (rubric.id,))
            inserted = session.execute("INSERT INTO rubrics VALUES (?, ?, ?, ?, ?, NULL) "
                                       "ON CONFLICT (rubric_id, version) DO NOTHING", row)
            restored = 0
            if not inserted:
                existing = session.fetchone("SELECT content_hash FROM rubrics WHERE rubric_id = ? AND version = ?",
                                            (rubric.id, rubric.version))
                if existing is not None and existing[0] != digest:
                    raise StorageError(f"rubric {rubric.ref} is already registered with different content; "
                                       "bump its version")
                restored = session.execute("UPDATE rubrics SET deleted_at = NULL WHERE rubric_id = ? AND version = ? "
                                           "AND deleted_at IS NOT NULL", (rubric.id, rubric.version))
            _repoint(session, rubric.id, restore=True)
            return bool(inserted or restored or pointer_before is None)

        return self._guard("registering a rubric", lambda: self.db.transaction(register))

    def get_rubric(self, reference: str, *, include_deleted: bool = False) -> Rubric | None:
        """``id`` (the version its latest pointer names) or ``id@version`` (any kept version, for audit).

        With ``include_deleted``, an ``id`` without a pointer gives its newest kept version.
        """
        rubric_id, _, version = reference.partition("@")
        if version:
            row = self._guard("reading the rubric registry", lambda: self.db.fetchone(
                "SELECT content_json FROM rubrics WHERE rubric_id = ? AND version = ?", (rubric_id, version)))
            return None if row is None else Rubric.model_validate_json(row[0])
        row = self._guard("reading the rubric registry", lambda: self.db.fetchone(
            "SELECT r.content_json FROM rubric_latest p JOIN rubrics r "
            "ON r.rubric_id = p.rubric_id AND r.version = p.version WHERE p.rubric_id = ?", (rubric_id,)))
        if row is not None:
            return Rubric.model_validate_json(row[0])
        if not include_deleted:
            return None
        rows = self._guard("reading the rubric registry", lambda: self.db.fetchall(
            "SELECT content_json, version FROM rubrics WHERE rubric_id = ?", (rubric_id,)))
        return Rubric.model_validate_json(max(rows, key=lambda r: version_key(r[1]))[0]) if rows else None

    def list_rubrics(self, include_deleted: bool = False) -> list[tuple[str, str, str, bool]]:
        """(id, version, created_at, deleted) per kept version; deleted: withdrawn, or its id has no pointer."""
        rows = self._guard("listing rubrics", lambda: self.db.fetchall(
            "SELECT r.rubric_id, r.version, r.created_at, r.deleted_at, p.version FROM rubrics r "
            "LEFT JOIN rubric_latest p ON p.rubric_id = r.rubric_id"))
        listed = [(r[0], r[1], r[2], r[3] is not None or r[4] is None) for r in rows]
        return sorted((r for r in listed if include_deleted or not r[3]), key=lambda r: (r[0], version_key(r[1])))

    def delete_rubric(self, reference: str) -> int:
        """``id``: remove its latest pointer, keeping every version (how many are kept; 0 if it had no pointer).

        ``id@version``: withdraw that version, kept for audit (1, or 0 if there was nothing to withdraw).
        """
        rubric_id, _, version = reference.partition("@")

        def delete(session: Session) -> int:
            if not version:
                if not session.execute("DELETE FROM rubric_latest WHERE rubric_id = ?", (rubric_id,)):
                    return 0
                kept = session.fetchone("SELECT COUNT(*) FROM rubrics WHERE rubric_id = ?", (rubric_id,))
                return int(kept[0]) if kept is not None else 0
            withdrawn = session.execute("UPDATE rubrics SET deleted_at = ? WHERE rubric_id = ? AND version = ? "
                                        "AND deleted_at IS NULL", (datetime.now(UTC).isoformat(), rubric_id, version))
            _repoint(session, rubric_id, restore=False)
            return withdrawn

        return self._guard("deleting a rubric", lambda: self.db.transaction(delete))

    def rubrics_for_target(self, target_type: str) -> list[Rubric]:
        """The latest version of every rubric with a pointer that judges ``target_type``."""
        latest = [self.get_rubric(rubric_id) for rubric_id in sorted({r[0] for r in self.list_rubrics()})]
        return [rubric for rubric in latest if rubric is not None and rubric.target_type == target_type]

    def update_rubric(self, rubric: Rubric) -> None:
        """Register a new version of a registered rubric; its version must be newer than the latest one."""
        current = self.get_rubric(rubric.id)
        if current is None:
            raise StorageError(f"rubric {rubric.id!r} is not registered (or was deleted); register it first")
        if version_key(rubric.version) <= version_key(current.version):
            raise StorageError(f"rubric {rubric.ref}: an update needs a version newer than {current.version}")
        self.register_rubric(rubric)
