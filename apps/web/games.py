"""The games a web app holds: a secret key per person's seat, limits, and expiry.

Memory holds only games in progress: when a game ends (or is stopped) it moves to the
:class:`~shipwreck_apps.web.archive.Archive` on disk and is served from there, links
unchanged, so finished games never fill the store. Each client address may hold at most
:attr:`Limits.per_client` games in progress and create at most :attr:`Limits.per_minute`
games a minute; the store holds at most :attr:`Limits.max_games` games in memory and
the archive :attr:`Limits.max_finished` finished ones (the oldest leaves first). A game
in progress expires after :attr:`Limits.idle_timeout` seconds without a request. A
game that expired or left the archive answers 410 (the page says so) rather than 404
for as long as its id is remembered.

With a :class:`~shipwreck_apps.web.journal.Journal` (``serve --games DIR``), every game
in progress is also journaled as it is played (:meth:`Games.record`, called before an
action's answer is sent) and :meth:`Games.resume` brings the unexpired ones back after a
restart, at the same ids and seat keys.

Seat keys are kept only as hashes (:func:`~shipwreck_apps.web.archive.key_hash`); the
keys themselves go once into the links of the answer that created the game.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.table import Table, TeammateError
from shipwreck_apps.web.archive import Archive, Finished, key_hash
from shipwreck_apps.web.guard import HTTPError
from shipwreck_apps.web.journal import Journal

__all__ = ["LOG_TAIL", "Game", "Games", "Limits"]

_log = logging.getLogger(__name__)

_REMEMBERED = 10_000
"""Expired game ids kept to answer 410."""
_ADDRESSES = 10_000
"""Client addresses whose recent creations are counted (the oldest is forgotten first)."""
_WINDOW = 60.0
"""Seconds of the per-address creation limit."""
_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
LOG_TAIL = 60
"""Log entries sent with each view."""


@dataclass(frozen=True)
class Limits:
    """The store's limits."""

    max_games: int = 200
    """Games held in memory at once (in progress, or finished but not archived)."""
    per_client: int = 20
    """Games in progress one client address may hold."""
    per_minute: int = 30
    """Games one client address may ask for in any 60 seconds (a request refused as
    malformed counts too: building a game costs the teammates' check)."""
    max_finished: int = 10_000
    """Finished games kept on disk; past it the oldest leaves (its links then answer 410)."""
    idle_timeout: float = 3600.0
    """Seconds without a request after which a game in progress expires."""

    def __post_init__(self) -> None:
        for name in ("max_games", "per_client", "per_minute", "max_finished"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} {value!r} is not allowed; allowed: a whole number >= 1")
        if not self.idle_timeout > 0:
            raise ValueError(f"idle_timeout {self.idle_timeout!r} must be a positive number")


@dataclass
class Game:
    """A table in memory, the hash of each person's seat key, and its bookkeeping."""

    table: Table
    keys: dict[int, str]
    """Each person's seat and the hash of its key."""
    client: str
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    replay: Replay | None = None
    """The finished game's replay, when it could not be archived."""


class Games:
    """Every game of the app, by id (thread-safe): in progress in memory, finished in
    ``archive``."""

    def __init__(
        self,
        limits: Limits,
        archive: Archive,
        clock: Callable[[], float] = time.monotonic,
        journal: Journal | None = None,
    ) -> None:
        self.limits = limits
        self.archive = archive
        self.journal = journal
        self._clock = clock
        self._games: dict[str, Game] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._created: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def admit(self, client: str) -> None:
        """Count a new game for ``client`` before it is built (building one costs the
        teammates' check), if the limits allow it.

        Raises:
            HTTPError: 429 the client created its share of games this minute or holds
                its share in progress, 503 the store is full.
        """
        now = self._clock()
        with self._lock:
            self._sweep(now)
            recent = self._created.pop(client, deque())
            while recent and now - recent[0] >= _WINDOW:
                recent.popleft()
            self._created[client] = recent  # now the newest address
            while len(self._created) > _ADDRESSES:
                self._created.popitem(last=False)
            if len(recent) >= self.limits.per_minute:
                wait = _WINDOW - (now - recent[0])
                raise HTTPError(
                    429,
                    f"this address created {len(recent)} games in the last minute (at most "
                    f"{self.limits.per_minute}); try again in {max(wait, 1):.0f} s",
                )
            self._check_room(client)
            recent.append(now)

    def _check_room(self, client: str) -> None:
        mine = sum(1 for g in self._games.values() if g.client == client and not g.table.closed)
        if mine >= self.limits.per_client:
            raise HTTPError(
                429,
                f"this address has {mine} games in progress (at most "
                f"{self.limits.per_client}); finish one or wait for it to expire",
            )
        if len(self._games) >= self.limits.max_games:
            raise HTTPError(
                503,
                f"the server holds {len(self._games)} games in progress (at most "
                f"{self.limits.max_games}); a game expires after "
                f"{self.limits.idle_timeout:g} s without a move: try later",
            )

    def add(self, table: Table, client: str) -> tuple[str, dict[int, str]]:
        """Hold ``table``, created by ``client`` (admitted by :meth:`admit`); returns its
        id and each person's seat key (kept here only as hashes).

        Raises:
            HTTPError: as :meth:`admit` (others may have filled the room meanwhile).
        """
        keys = {p: secrets.token_urlsafe(18) for p in table.humans}
        now = self._clock()
        game = Game(table, {p: key_hash(k) for p, k in keys.items()}, client, now)
        with self._lock:
            self._sweep(now)
            self._check_room(client)
            gid = secrets.token_urlsafe(18)
            self._games[gid] = game
        if self.journal is not None:
            try:
                self.journal.start(gid, table, game.keys, client)
            except OSError:
                _log.exception("game %s could not be journaled; it was not created", gid)
                with self._lock:
                    self._games.pop(gid, None)
                raise HTTPError(
                    500,
                    "the server could not write the new game to its games folder; no "
                    "game was created",
                ) from None
        if table.closed:  # a game the teammates ended before a person's first decision
            self.finish(gid, game)
        return gid, keys

    def get(self, gid: str) -> Game | Finished:
        """The game ``gid``: in memory (marked as used now) or archived.

        Raises:
            HTTPError: 404 no such game, 410 it expired.
        """
        now = self._clock()
        if not _GAME_ID.match(gid):
            raise HTTPError(404, "no such game: a game id is letters, digits, - and _")
        with self._lock:
            game = self._games.get(gid)
            if game is not None and now - game.last_used >= self.limits.idle_timeout:
                self._expire(gid)
                game = None
            if game is not None:
                game.last_used = now
                if self.journal is not None:
                    self.journal.touch(gid)
                return game
            expired = gid in self._expired
        finished = None if expired else self.archive.get(gid)
        if finished is not None:
            return finished
        if expired:
            raise HTTPError(
                410,
                f"game {gid!r} has expired (after {self.limits.idle_timeout:g} s without a "
                f"request, or as one of more than {self.limits.max_finished} finished games)",
            )
        raise HTTPError(404, f"no game {gid!r}")

    def finish(self, gid: str, game: Game) -> None:
        """Move the closed game ``gid`` to the archive with each seat's last view (call it
        holding ``game.lock``). If that fails the failure is logged and the game stays in
        memory (finished, until it expires): its players can still see its end."""
        table = game.table
        try:
            views = {p: table.seat_data(p, LOG_TAIL) for p in table.humans}
            dropped = self.archive.put(gid, game.keys, views, table.record(), table.ended)
        except Exception:  # the game has ended all the same: never answer otherwise
            _log.exception("game %s ended but could not be archived; it stays in memory", gid)
            return
        if self.journal is not None:
            self.journal.remove(gid)
        with self._lock:
            self._games.pop(gid, None)
            if dropped:
                self._remember(dropped)

    def record(self, gid: str, game: Game) -> None:
        """Journal the actions ``game`` took since the last call, synced to disk (call it
        holding ``game.lock``, before the answer is sent). Without a journal, nothing.

        Raises:
            OSError: they could not be written.
        """
        if self.journal is not None:
            self.journal.append(gid, game.table)

    def resume(self) -> int:
        """Bring back every game in progress of the journal that has not expired (an
        expired one is forgotten), each at the moment of its last whole action; the AI
        teammates finish a run of theirs that a stop interrupted. Returns how many came
        back; a journal that cannot be read is logged and set aside."""
        if self.journal is None:
            return 0
        resumed, problems = self.journal.resume()
        for line in problems:
            _log.error("%s", line)
        now = self._clock()
        back = 0
        for r in resumed:
            if r.age >= self.limits.idle_timeout:
                self.journal.remove(r.gid)
                with self._lock:
                    self._remember(r.gid)
                continue
            game = Game(r.table, r.keys, r.client, now - r.age)
            try:
                with r.table.transaction():
                    r.table.advance()
            except TeammateError as exc:
                _log.error("game %s: %s", r.gid, exc, exc_info=exc.__cause__)
            try:
                self.journal.append(r.gid, r.table)
            except OSError:
                _log.exception("game %s: its resumed actions could not be journaled", r.gid)
            with self._lock:
                self._games[r.gid] = game
            if r.table.closed:
                self.finish(r.gid, game)
            back += 1
        return back

    def _sweep(self, now: float) -> None:
        for gid in [
            g for g, game in self._games.items() if now - game.last_used >= self.limits.idle_timeout
        ]:
            self._expire(gid)

    def _expire(self, gid: str) -> None:
        del self._games[gid]
        self._remember(gid)
        if self.journal is not None:
            self.journal.remove(gid)

    def _remember(self, gid: str) -> None:
        self._expired[gid] = None
        while len(self._expired) > _REMEMBERED:
            self._expired.popitem(last=False)

    def __len__(self) -> int:
        """Games in memory."""
        return len(self._games)

    def __iter__(self):
        with self._lock:
            return iter(list(self._games))
