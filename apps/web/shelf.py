"""The replay folder of ``serve --replays DIR``: which of its files may be shown.

Only records of finished games are listed and served; a saved table or the record of a
game that is not over holds the hands and the deck order of a game someone may still be
playing. A file's own claim (``result.over``) decides the listing cheaply; serving
replays the game and checks it really ended.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from shipwreck_agents.evaluation.records import FORMAT as RECORD_FORMAT
from shipwreck_agents.evaluation.records import ReplayError
from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.web.guard import HTTPError

__all__ = ["ReplayShelf"]

_REPLAY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,120}\.json$")


class ReplayShelf:
    """The finished games in a folder of replay records (``serve --replays DIR``).

    A file is listed and shown only if it is a replay record (not a saved table) whose
    game, replayed, is over: a save of an unfinished game holds the deck order and every
    hand of a game someone may still be playing.
    """

    CACHE = 50

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._finished: dict[str, tuple[tuple[int, int], bool]] = {}
        self._replays: dict[str, tuple[tuple[int, int], Replay]] = {}

    def names(self) -> list[str]:
        """Names of the finished records, sorted (at most 1000)."""
        if not self.folder.is_dir():
            return []
        names = sorted(p.name for p in self.folder.glob("*.json") if _REPLAY_NAME.match(p.name))
        return [n for n in names if self._claims_finished(n)][:1000]

    def _claims_finished(self, name: str) -> bool:
        """Does the file say it is a record of a finished game (cheap: no replay)?"""
        path = self.folder / name
        try:
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            known = self._finished.get(name)
            if known is None or known[0] != stamp:
                data = json.loads(path.read_text())
                over = (
                    isinstance(data, dict)
                    and data.get("format") == RECORD_FORMAT
                    and isinstance(data.get("result"), dict)
                    and data["result"].get("over") is True
                )
                known = self._finished[name] = (stamp, over)
        except (OSError, ValueError):
            return False
        return known[1]

    def replay(self, name: str) -> Replay:
        """The replay ``name``, checked to be a finished game by replaying it.

        Raises:
            HTTPError: 404 no such record, 403 not a finished game, 400 unreadable.
        """
        path = self.folder / name
        if not _REPLAY_NAME.match(name) or not path.is_file():
            raise HTTPError(404, f"no replay {name!r}")
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._replays.get(name)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if not self._claims_finished(name):
            raise HTTPError(
                403, f"{name!r} is not the record of a finished game; only those are shown"
            )
        try:
            replay = Replay(path)
        except ReplayError as exc:
            raise HTTPError(400, f"replay {name!r} cannot be shown: {exc}") from None
        if not replay.states[-1].over:
            raise HTTPError(
                403, f"{name!r} is not the record of a finished game; only those are shown"
            )
        if len(self._replays) >= self.CACHE:
            self._replays.clear()
        self._replays[name] = (stamp, replay)
        return replay
