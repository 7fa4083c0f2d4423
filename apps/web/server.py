"""``shipwreck-arcana serve``: the web app on uvicorn, checked before it starts.

:func:`serve` refuses to start (one line, :class:`SystemExit`) when the record folder
cannot be written to, says which teams are not offered on this machine (a learned team
without the ``train`` extra), sends the app's log (failures with their details) to
stderr, and runs uvicorn with :func:`server_config`: a connection
must finish a request's headers within ``header_timeout`` seconds (uvicorn itself waits
forever for them), and a body must arrive within ``body_timeout`` seconds
(:class:`~shipwreck_apps.web.guard.Guard`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from shipwreck_apps.web.app import create_app
from shipwreck_apps.web.games import Limits
from shipwreck_apps.web.guard import BODY_TIMEOUT, LOOPBACK
from shipwreck_apps.web.teams import TEAMS, offered_teams

__all__ = ["HEADER_TIMEOUT", "default_games_folder", "serve", "server_config", "timed_protocol"]

HEADER_TIMEOUT = 10.0
"""Seconds a connection may take to send a request's headers (the first request's from
when it opens, the next one's from the end of the answer before)."""


def default_games_folder() -> Path:
    """Where ``serve`` journals its games unless told otherwise:
    ``$XDG_STATE_HOME/shipwreck-arcana/games`` (``~/.local/state/...`` by default)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "shipwreck-arcana" / "games"


def timed_protocol(header_timeout: float) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol, closing a connection whose next request's headers
    are not complete ``header_timeout`` seconds after it began waiting for them."""

    class TimedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._wait_for_headers()

        def on_response_complete(self) -> None:
            self._wait_for_headers()
            super().on_response_complete()

        def _wait_for_headers(self) -> None:
            waiting = self.cycle  # a new request replaces it once its headers are in
            self.loop.call_later(header_timeout, self._headers_late, waiting)

        def _headers_late(self, waiting) -> None:
            if self.cycle is waiting and not self.transport.is_closing():
                self.transport.close()

    return TimedH11Protocol


def server_config(
    app,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    header_timeout: float = HEADER_TIMEOUT,
) -> uvicorn.Config:
    """uvicorn's configuration for ``app``: HTTP/1.1 (h11) with the header timeout, no
    access log."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=timed_protocol(header_timeout),
        log_level="warning",
        access_log=False,
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    replays: str | None = None,
    record: str | None = None,
    *,
    allowed_hosts: Iterable[str] = (),
    limits: Limits | None = None,
    header_timeout: float = HEADER_TIMEOUT,
    body_timeout: float = BODY_TIMEOUT,
    games_folder: str | Path | None = None,
) -> None:
    """Run the app with uvicorn until interrupted; it answers to the loopback names when
    ``host`` is a loopback address, else to ``host`` and ``allowed_hosts``. Games are
    journaled in ``games_folder`` (default :func:`default_games_folder`), and the games
    in progress found there are resumed first.

    Raises:
        SystemExit: the record or games folder cannot be written to, or another server
            uses the games folder (one line naming it).
    """
    logging.basicConfig(  # the app's log (failures, with their details) on stderr
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    names = {*allowed_hosts, *(LOOPBACK if host in LOOPBACK else (host,))}
    teams = offered_teams()
    for spec in TEAMS:
        if spec not in teams:
            print(f"note: team {spec} is not offered here (it cannot be created)", file=sys.stderr)
    try:
        app = create_app(
            replays,
            record,
            allowed_hosts=names,
            limits=limits,
            teams=teams,
            body_timeout=body_timeout,
            games_folder=games_folder if games_folder is not None else default_games_folder(),
        )
    except ValueError as exc:
        raise SystemExit(f"shipwreck-arcana serve: {exc}") from None
    print(f"Shipwreck Arcana table: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.Server(server_config(app, host, port, header_timeout=header_timeout)).run()
