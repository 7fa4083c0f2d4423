"""Finished games on disk: the web app's memory holds only games in progress.

When a game ends (or is stopped), :meth:`Archive.put` writes its replay record to the
records folder (``serve --record DIR``, else a private temporary folder the server owns)
and, in the server's private folder, an index entry: the record's name, a SHA-256 hash of
each person's seat key (never the key itself) and each seat's last view. The game then
leaves memory; its links keep working from the disk (:meth:`Archive.get`), and a wrong
key is still refused.

The archive holds at most ``limit`` finished games: past that the oldest leaves it (its
index entry, and its record if the records folder is the private one; a record in
``--record DIR`` is never deleted). The private folder is removed when the archive is,
unless it is the server's games folder (``serve --games DIR``): then the index and the
records stay, and a server started again on that folder serves the same finished games
at the same links.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path

from shipwreck_agents.evaluation.records import write_record
from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.table import Table

__all__ = ["Archive", "Finished", "check_folder", "key_hash"]


def key_hash(key: str) -> str:
    """The SHA-256 hex digest of a seat key: what is kept of it."""
    return hashlib.sha256(key.encode()).hexdigest()


def check_folder(folder: str | Path) -> Path:
    """``folder``, created if missing, after checking that a file can be written there.

    Raises:
        ValueError: the folder cannot be created or written to (names it).
    """
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ValueError(
            f"the record folder {str(path)!r} cannot be written to ({exc.strerror or exc})"
        ) from None
    return path


@dataclass(frozen=True)
class Finished:
    """A finished game as the archive keeps it."""

    keys: dict[int, str]
    """Each person's seat and the hash of its key (:func:`key_hash`)."""
    views: dict[int, dict]
    """Each person's last view of the game."""
    record: Path
    """The game's replay record."""
    ended: str | None = None
    """Why the game was stopped before its end, or ``None`` (:attr:`Table.ended`)."""

    @property
    def table(self) -> Table:
        """The game rebuilt from its record (its teammates are asked again at each of
        their decisions): for tools and tests; requests are answered from :attr:`views`."""
        table = Table.from_record(json.loads(self.record.read_text()))
        table.ended = self.ended
        return table


class Archive:
    """The finished games of one web app (thread-safe).

    Args:
        records: the folder where records are written (``None``: a private one).
        limit: finished games kept; past it the oldest leaves the archive.
    """

    REPLAYS = 16
    """Replays kept in memory (built from their records when first asked for)."""

    def __init__(
        self, records: str | Path | None, limit: int, folder: str | Path | None = None
    ) -> None:
        if folder is None:
            self._work = tempfile.TemporaryDirectory(prefix="shipwreck-web-")
            private = Path(self._work.name)
        else:
            private = Path(folder)
        self._index = private / "games"
        self._index.mkdir(parents=True, exist_ok=True)
        self.records = check_folder(records) if records is not None else private / "records"
        self.records.mkdir(exist_ok=True)
        self.private_records = records is None
        self.limit = limit
        self._order: deque[str] = deque(self._kept())
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        self._lock = threading.Lock()
        while len(self._order) > self.limit:
            self._drop(self._order.popleft())

    def _kept(self) -> list[str]:
        """The ids of the finished games already in the index, oldest first."""
        found = []
        for path in self._index.glob("*.json"):
            try:
                found.append((path.stat().st_mtime, json.loads(path.read_text())["game"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # an entry from before ids were kept, or unreadable: not served
        return [gid for _, gid in sorted(found)]

    def put(
        self,
        gid: str,
        keys: dict[int, str],
        views: dict[int, dict],
        record: dict,
        ended: str | None = None,
    ) -> str:
        """Write the finished game ``gid``: its ``record`` and an index entry with its
        seats' key hashes ``keys``, last ``views`` and why it was stopped (``ended``);
        returns the id of the game pushed out of the archive to make room, or ``""``.

        Raises:
            OSError: either file could not be written (nothing is kept then).
        """
        name = f"web-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.json"
        path = write_record(self.records, name, record)
        entry = {"game": gid, "record": name, "keys": keys, "views": views, "ended": ended}
        try:
            (self._index / _entry_name(gid)).write_text(json.dumps(entry))
        except OSError:
            if self.private_records:
                path.unlink(missing_ok=True)
            raise
        with self._lock:
            self._order.append(gid)
            if len(self._order) <= self.limit:
                return ""
            oldest = self._order.popleft()
            self._replays.pop(oldest, None)
        self._drop(oldest)
        return oldest

    def _drop(self, gid: str) -> None:
        entry = self._index / _entry_name(gid)
        try:
            if self.private_records:
                name = json.loads(entry.read_text())["record"]
                (self.records / name).unlink(missing_ok=True)
            entry.unlink(missing_ok=True)
        except (OSError, ValueError, KeyError):
            pass  # an entry that cannot be read is gone for the app all the same

    def get(self, gid: str) -> Finished | None:
        """The finished game ``gid``, or ``None`` if the archive does not hold it."""
        try:
            entry = json.loads((self._index / _entry_name(gid)).read_text())
        except (OSError, ValueError):
            return None
        return Finished(
            keys={int(seat): digest for seat, digest in entry["keys"].items()},
            views={int(seat): view for seat, view in entry["views"].items()},
            record=self.records / entry["record"],
            ended=entry["ended"],
        )

    def replay(self, gid: str, finished: Finished) -> Replay:
        """The replay of ``finished`` (the game ``gid``), from its record."""
        with self._lock:
            replay = self._replays.get(gid)
        if replay is None:
            replay = Replay(finished.record)
            with self._lock:
                self._replays[gid] = replay
                while len(self._replays) > self.REPLAYS:
                    self._replays.popitem(last=False)
        return replay

    def __len__(self) -> int:
        return len(self._order)


def _entry_name(gid: str) -> str:
    """The index file of game ``gid``: named by a hash, so no id reaches a path."""
    return hashlib.sha256(gid.encode()).hexdigest() + ".json"
