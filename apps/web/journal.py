"""Games in progress on disk, so that a server started again resumes them.

Each game in progress has one journal file in ``FOLDER/progress/``: a first line with
everything needed to build the game again (its configuration, seed, people's seats,
teammates, the hash of each seat key, the client address that created it) and then one
line per accepted action, people's and AI teammates' alike. :meth:`Journal.append`
flushes and syncs the new lines before it returns, and the web app calls it before it
sends the answer to an action: an action a player saw accepted is on disk.

Reading (:func:`read_journal`) takes every whole line and stops at the first line that
is cut short or cannot be read, so a journal cut by a kill in the middle of a write is
read up to its last whole action. A game is resumed by replaying those actions from its
seed (the AI teammates are asked again at their decisions, which rebuilds their memory)
and letting the teammates finish a run of theirs the kill interrupted.

A journal holds the whole game (every fate and the deck order follow from the seed): the
folder is the server's own (mode 0700), like a save file. Only one server may use a
folder at a time (:class:`FolderBusy`).

It must not decide anything about the game: it stores and reads what the app gives it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from shipwreck_apps.play.table import PlayError, Table
from shipwreck_env.rules.config import GameConfig

__all__ = ["JOURNAL_FORMAT", "FolderBusy", "Journal", "Resumed", "read_journal"]

JOURNAL_FORMAT = "shipwreck-arcana-journal"


class FolderBusy(ValueError):
    """Another server holds the games folder."""


@dataclass(frozen=True)
class Resumed:
    """A game read back from its journal."""

    gid: str
    table: Table
    keys: dict[int, str]
    client: str
    age: float
    """Seconds since its journal was last written (or touched)."""


def read_journal(path: Path) -> tuple[dict, list[int]]:
    """The header and the actions of the journal at ``path``: every whole line up to the
    first one cut short or unreadable.

    Raises:
        ValueError: the header itself is missing or unreadable.
    """
    text = path.read_bytes().decode("utf-8", errors="replace")
    lines = text.split("\n")[:-1]  # the piece after the last newline was cut short
    if not lines:
        raise ValueError(f"journal {path.name} has no whole header line")
    try:
        header = json.loads(lines[0])
    except ValueError as exc:
        raise ValueError(f"journal {path.name} has an unreadable header: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise ValueError(f"journal {path.name} is not a {JOURNAL_FORMAT!r} file")
    actions = []
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if not isinstance(entry, dict) or type(entry.get("a")) is not int:
            break
        actions.append(entry["a"])
    return header, actions


class Journal:
    """The journal files of one server's games in progress, in ``folder/progress``.

    Raises:
        ValueError: ``folder`` cannot be created or written to.
        FolderBusy: another server uses ``folder``.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.progress = self.folder / "progress"
        try:
            self.progress.mkdir(parents=True, exist_ok=True)
            os.chmod(self.folder, 0o700)
            self._lock = open(self.folder / "lock", "a")  # noqa: SIM115 -- held for life
        except OSError as exc:
            raise ValueError(
                f"the games folder {str(self.folder)!r} cannot be written to "
                f"({exc.strerror or exc})"
            ) from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise FolderBusy(
                f"the games folder {str(self.folder)!r} is in use by another server; give "
                "this one its own with --games DIR"
            ) from None
        self._written: dict[str, int] = {}
        """Actions on disk, per game."""
        self._touched: dict[str, float] = {}

    def close(self) -> None:
        """Let another server use the folder (the lock goes with the process too)."""
        self._lock.close()

    def _path(self, gid: str) -> Path:
        return self.progress / (hashlib.sha256(gid.encode()).hexdigest() + ".jsonl")

    def start(self, gid: str, table: Table, keys: dict[int, str], client: str) -> None:
        """Write the journal of the new game ``gid`` (``keys``: each seat's key hash) with
        the actions taken so far, synced to disk.

        Raises:
            OSError: it could not be written (nothing is left behind).
        """
        header = {
            "format": JOURNAL_FORMAT,
            "version": 1,
            "game": gid,
            "config": table.config.to_dict(),
            "seed": table.seed,
            "humans": list(table.humans),
            "teammates": table.teammates,
            "keys": {str(p): h for p, h in keys.items()},
            "client": client,
        }
        lines = [json.dumps(header)] + [json.dumps({"a": a}) for a in table.actions]
        path = self._path(gid)
        try:
            with open(path, "x") as f:
                f.write("\n".join(lines) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError:
            path.unlink(missing_ok=True)
            raise
        self._written[gid] = len(table.actions)

    def append(self, gid: str, table: Table) -> None:
        """Add the actions of ``table`` not yet in the journal of ``gid``, synced to disk
        before returning.

        Raises:
            OSError: they could not be written (the file is cut back to what it was).
        """
        done = self._written.get(gid, 0)
        new = table.actions[done:]
        if not new:
            return
        path = self._path(gid)
        size = path.stat().st_size
        try:
            with open(path, "a") as f:
                f.write("".join(json.dumps({"a": a}) + "\n" for a in new))
                f.flush()
                os.fsync(f.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                os.truncate(path, size)
            raise
        self._written[gid] = len(table.actions)
        self._touched[gid] = time.monotonic()

    def touch(self, gid: str, every: float = 60.0) -> None:
        """Mark the journal of ``gid`` as used now (at most once every ``every`` seconds),
        so a restart counts its idle time from the last request, not the last action."""
        now = time.monotonic()
        if now - self._touched.get(gid, 0.0) < every:
            return
        self._touched[gid] = now
        with contextlib.suppress(OSError):
            os.utime(self._path(gid))

    def remove(self, gid: str) -> None:
        """Forget the game ``gid`` (it ended, expired or was archived)."""
        self._written.pop(gid, None)
        self._touched.pop(gid, None)
        with contextlib.suppress(OSError):
            self._path(gid).unlink()

    def _rewrite(self, path: Path, header: dict, actions: list[int]) -> None:
        """Write ``path`` again with exactly ``header`` and ``actions`` (through a new file
        renamed over it), keeping its modification time."""
        mtime = path.stat().st_mtime
        lines = [json.dumps(header)] + [json.dumps({"a": a}) for a in actions]
        text = "\n".join(lines) + "\n"
        if path.read_text(errors="replace") == text:
            return
        fresh = path.with_suffix(".new")
        with open(fresh, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.utime(fresh, (mtime, mtime))
        fresh.replace(path)

    def resume(self) -> tuple[list[Resumed], list[str]]:
        """Every game the folder holds, replayed to its last whole action, and a line for
        each journal that could not be resumed (that journal is set aside as
        ``*.broken``, never deleted)."""
        games, problems = [], []
        now = time.time()
        for path in sorted(self.progress.glob("*.jsonl")):
            try:
                header, actions = read_journal(path)
                table = Table.replayed(
                    GameConfig.from_dict(header["config"]),
                    header["humans"],
                    header["teammates"],
                    header["seed"],
                    actions,
                )
                gid = header["game"]
                keys = {int(p): h for p, h in header["keys"].items()}
                age = max(0.0, now - path.stat().st_mtime)
                client = str(header.get("client", "?"))
            except (OSError, KeyError, TypeError, ValueError, PlayError) as exc:
                problems.append(f"journal {path.name} could not be resumed: {exc}")
                with contextlib.suppress(OSError):
                    path.rename(path.with_suffix(".broken"))
                continue
            if self._path(gid) != path:
                problems.append(f"journal {path.name} names another game; set aside")
                with contextlib.suppress(OSError):
                    path.rename(path.with_suffix(".broken"))
                continue
            try:
                self._rewrite(path, header, actions)  # without a piece a kill cut short
            except OSError as exc:
                problems.append(f"journal {path.name} could not be rewritten: {exc}")
                continue
            self._written[gid] = len(actions)
            games.append(Resumed(gid, table, keys, client, age))
        return games, problems
