"""The games a web app holds: a secret key per person's seat, limits, and expiry.

A game expires after :attr:`Limits.idle_timeout` seconds without a request for it
(finished or not), so a finished game stays reachable for its replay for at least that
long whatever the load: a new game never pushes one out; when the store is full the new
game is refused (503) instead. Each client address may hold at most
:attr:`Limits.per_client` games in progress. An expired game answers 410 (the page says
so) rather than 404 for as long as its id is remembered.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.table import Table
from shipwreck_apps.web.guard import HTTPError

__all__ = ["Game", "Games", "Limits"]

_REMEMBERED = 10_000
"""Expired game ids kept to answer 410."""


@dataclass(frozen=True)
class Limits:
    """The store's limits."""

    max_games: int = 200
    """Games held at once (in progress and finished)."""
    per_client: int = 20
    """Games in progress one client address may hold."""
    idle_timeout: float = 3600.0
    """Seconds without a request after which a game expires."""


@dataclass
class Game:
    """A table, the secret key of each person's seat, and its bookkeeping."""

    table: Table
    keys: dict[int, str]
    client: str
    last_used: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    replay: Replay | None = None
    """The finished game's replay (built when first asked for)."""
    recorded: bool = False


class Games:
    """Every game of the app, by id (thread-safe)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._games: dict[str, Game] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, table: Table, client: str) -> tuple[str, Game]:
        """Hold ``table``, created by ``client``; returns its id and game.

        Raises:
            HTTPError: 429 the client holds its share of games in progress, 503 the
                store is full.
        """
        now = self._clock()
        game = Game(table, {p: secrets.token_urlsafe(18) for p in table.humans}, client, now)
        with self._lock:
            self._sweep(now)
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
                    f"the server holds {len(self._games)} games (at most "
                    f"{self.limits.max_games}); a game expires after "
                    f"{self.limits.idle_timeout:g} s without a move: try later",
                )
            gid = secrets.token_urlsafe(18)
            self._games[gid] = game
        return gid, game

    def get(self, gid: str) -> Game:
        """The game ``gid``, marked as used now.

        Raises:
            HTTPError: 404 no such game, 410 it expired.
        """
        now = self._clock()
        with self._lock:
            game = self._games.get(gid)
            if game is not None and now - game.last_used >= self.limits.idle_timeout:
                self._expire(gid)
                game = None
            if game is None:
                if gid in self._expired:
                    raise HTTPError(
                        410,
                        f"game {gid!r} expired after {self.limits.idle_timeout:g} s "
                        "without a request",
                    )
                raise HTTPError(404, f"no game {gid!r}")
            game.last_used = now
        return game

    def _sweep(self, now: float) -> None:
        for gid in [
            g for g, game in self._games.items() if now - game.last_used >= self.limits.idle_timeout
        ]:
            self._expire(gid)

    def _expire(self, gid: str) -> None:
        del self._games[gid]
        self._expired[gid] = None
        while len(self._expired) > _REMEMBERED:
            self._expired.popitem(last=False)

    def __len__(self) -> int:
        return len(self._games)

    def __iter__(self):
        with self._lock:
            return iter(list(self._games))
