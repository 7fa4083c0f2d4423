"""The local web app: games with people and AI teammates, one secret link per seat, and
replays.

Each game lives under an unguessable id; each person's seat has its own secret key,
carried in the fragment of their link (``/play/GAME/SEAT#key=KEY``: a fragment never
reaches the server's logs) and sent back in the ``X-Seat-Key`` header. A request gets
exactly its own seat's view (:meth:`shipwreck_apps.play.table.Table.seat_data`) and may act only
for that seat. The API::

    POST /api/games                          {players, difficulty, card_sets,
                                              group_decision, challenge_mode?,
                                              teammates, humans, seed?}
                                             -> 201 {game, links: {seat: link}}
    GET  /api/games/GAME/seats/SEAT          -> the seat's view, with its version
                                                                       (X-Seat-Key)
    POST /api/games/GAME/seats/SEAT/actions  {action: int, version: int} -> the view
                                             after the AI teammates have played
                                                                       (X-Seat-Key)
    GET  /api/games/GAME/seats/SEAT/replay?step=I&viewer=all|P
                                             -> a step of the finished game (X-Seat-Key)
    GET  /api/teams                          -> [spec, ...]: the teams offered here
    GET  /api/replays                        -> [name, ...]   (serve --replays DIR)
    GET  /api/replays/NAME?step=I&viewer=all|P -> that step as that viewer sees it

An action names the ``version`` of the view it was chosen in: a request sent twice or
overtaken by another is refused (409) instead of becoming a move on a decision its
sender never saw, so a page may resend an action safely. A body without ``version`` is
accepted for scripts, but it is not safe to repeat: it applies to whatever decision is
current.

What it protects: teammates are checked before a game exists (a cheating or failing
team is a 400 naming it; the lobby offers only the teams that can be created on this
server, :mod:`shipwreck_apps.web.teams`); an action is applied with the AI decisions after it, or
not at all; a teammate's failure is logged with its details and shown to people as a
fixed message; a game's replay opens only to its own seats' keys once it is over; the
replay folder shows only finished games; requests pass
:class:`~shipwreck_apps.web.guard.Guard` (host, origin, JSON only, body size and time,
JSON limits); finished games move to disk, games in progress expire when idle and each
address has limits (:mod:`shipwreck_apps.web.games`); with a games folder every game in
progress is journaled before its answer is sent and comes back when the server starts
again on that folder (:mod:`shipwreck_apps.web.journal`).

Errors are ``{"error": message}`` and change nothing: 400 malformed request, 403 wrong
key or another site, 404 unknown game / seat / replay, 408 a body that did not arrive in
time, 409 not this seat's decision, a stale version, an illegal action or a stopped or
finished game, 410 an expired game, 413 a body too large, 415 not JSON, 421 a host not
served, 429 too many games from one address (in progress, or created this minute), 503
too many games, 500 something failed (the answer says the game is unchanged).
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shipwreck_agents.evaluation.records import ReplayError
from shipwreck_agents.registry import shown
from shipwreck_apps.play import DEFAULT_TEAMMATES
from shipwreck_apps.play.replay_view import Replay, parse_viewer
from shipwreck_apps.play.table import PlayError, Table, TeammateError
from shipwreck_apps.web.archive import Archive, Finished, check_folder, key_hash
from shipwreck_apps.web.games import LOG_TAIL, Game, Games, Limits
from shipwreck_apps.web.guard import (
    BODY_TIMEOUT,
    LOOPBACK,
    Guard,
    HTTPError,
    described,
    read_json,
)
from shipwreck_apps.web.journal import Journal
from shipwreck_apps.web.shelf import ReplayShelf
from shipwreck_apps.web.teams import check_teammates, offered_teams
from shipwreck_env.rules.config import GameConfig

__all__ = ["LOG_TAIL", "create_app"]

_log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
_GAME_FIELDS = {
    "players",
    "difficulty",
    "card_sets",
    "group_decision",
    "challenge_mode",
    "teammates",
    "humans",
    "seed",
}
TEAMMATES_FAILED = (
    "the AI teammates failed; the details are in the server's log. Your action was not "
    "applied and the game, unchanged, has been stopped."
)
"""What the people at a table are told when their teammates fail (never the exception's
text: it may quote that policy's own hand)."""


def _error(exc: HTTPError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


def _string(data: dict, name: str, default: str) -> str:
    value = data.get(name, default)
    if not isinstance(value, str):
        raise HTTPError(400, f"{name} must be a name (text), got {described(value)}")
    return value


def _new_table(data: dict, teams: Sequence[str]) -> Table:
    unknown = set(data) - _GAME_FIELDS
    if unknown:
        names = [shown(str(n), 30) for n in sorted(unknown)[:5]]
        raise HTTPError(400, f"unknown fields {', '.join(names)}; allowed: {sorted(_GAME_FIELDS)}")
    players = data.get("players", 3)
    humans = data.get("humans", [0])
    seed = data.get("seed")
    if type(players) is not int or not 2 <= players <= 5:
        raise HTTPError(400, f"players must be a whole number 2..5, got {described(players)}")
    if not isinstance(humans, list) or not humans or not all(type(h) is int for h in humans):
        raise HTTPError(
            400, f"humans must be a non-empty list of player numbers, got {described(humans)}"
        )
    if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
        raise HTTPError(400, f"seed must be a whole number 0..2^63-1, got {described(seed)}")
    challenge = data.get("challenge_mode", False)
    if type(challenge) is not bool:
        raise HTTPError(400, f"challenge_mode must be true or false, got {described(challenge)}")
    card_sets = data.get("card_sets", "base")
    if not isinstance(card_sets, str) and not (
        isinstance(card_sets, list) and all(isinstance(c, str) for c in card_sets)
    ):
        raise HTTPError(
            400, f"card_sets must be a name or a list of names, got {described(card_sets)}"
        )
    spec = check_teammates(data.get("teammates", DEFAULT_TEAMMATES), teams)
    try:
        config = GameConfig(
            num_players=players,
            difficulty=_string(data, "difficulty", "normal"),
            card_sets=card_sets,
            group_decision=_string(data, "group_decision", "leader"),
            challenge_mode=challenge,
        )
        table = Table(config, humans, spec, seed)
    except ImportError as exc:  # a learned team without its extra
        raise HTTPError(
            400, f"teammates {shown(spec)} cannot be created on this server: {exc}"
        ) from None
    except ValueError as exc:
        if exc.__cause__ is not None:  # a team that failed on a scratch game: details here
            _log.warning("teammates %r refused: %s", spec, exc, exc_info=exc.__cause__)
        raise HTTPError(400, str(exc)) from None
    try:
        table.advance()
    except TeammateError as exc:
        _log.error("teammates %r failed before a person decided", spec, exc_info=exc.__cause__)
        raise HTTPError(
            500, f"{exc}; the details are in the server's log; no game was created"
        ) from None
    return table


def _seat(entry: Game | Finished, seat_text: str, request: Request) -> int:
    if not re.fullmatch(r"[0-9]{1,2}", seat_text):
        raise HTTPError(404, f"no seat {shown(seat_text, 20)}: a seat is a player number")
    seat = int(seat_text)
    digest = entry.keys.get(seat)
    if digest is None:
        raise HTTPError(404, f"seat {seat} is not a person's seat at this game")
    given = request.headers.get("x-seat-key", "")
    if not secrets.compare_digest(key_hash(given), digest):
        raise HTTPError(403, f"this link's key does not open seat {seat}")
    return seat


def _action_of(data: dict) -> tuple[int, int | None]:
    """The action number and the version (or ``None``) of an action body."""
    usage = 'the body must be {"action": N, "version": V} (V: the version of the view)'
    if "action" not in data or not set(data) <= {"action", "version"}:
        names = ", ".join(shown(str(n), 30) for n in sorted(data)[:5]) or "none"
        raise HTTPError(400, f"{usage}; got the fields {names}")
    action, version = data["action"], data.get("version")
    if type(action) is not int:
        raise HTTPError(400, f"{usage}; action is {described(action)}, not a whole number")
    if version is not None and (type(version) is not int or version < 0):
        raise HTTPError(400, f"{usage}; version is {described(version)}, not a whole number >= 0")
    return action, version


def create_app(
    replays: str | Path | None = None,
    record: str | Path | None = None,
    *,
    allowed_hosts: Iterable[str] = LOOPBACK,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.monotonic,
    teams: Sequence[str] | None = None,
    body_timeout: float = BODY_TIMEOUT,
    games_folder: str | Path | None = None,
) -> Starlette:
    """The web app.

    Args:
        replays: a folder of replay records to offer (finished games only).
        record: a folder where every finished game is written as a replay record (else
            they go to a private temporary folder, removed with the app).
        allowed_hosts: host names (without port) the app answers to.
        limits: game limits (:class:`~shipwreck_apps.web.games.Limits`).
        clock: seconds, for idle expiry and the per-minute limit (tests pass their own).
        teams: the teams the lobby offers (default: :func:`offered_teams`).
        body_timeout: seconds a request body may take to arrive.
        games_folder: a folder of the server's own where games in progress are journaled
            and finished ones indexed; an app created on it again resumes them (``None``:
            a private temporary folder, so nothing outlives the app).

    Raises:
        ValueError: the ``record`` folder or the games folder cannot be written to, or
            another server uses the games folder
            (:class:`~shipwreck_apps.web.journal.FolderBusy`).
    """
    limits = limits or Limits()
    if record is not None:
        check_folder(record)  # refused before the games folder is made or locked
    journal = Journal(games_folder) if games_folder is not None else None
    archive = Archive(record, limits.max_finished, games_folder)
    games = Games(limits, archive, clock, journal)
    back = games.resume()
    if back:
        _log.info("resumed %d game(s) in progress from %s", back, games_folder)
    shelf = ReplayShelf(Path(replays)) if replays else None
    offered = list(offered_teams() if teams is None else teams)

    def page(name: str):
        def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name)

        return endpoint

    async def create_game(request: Request) -> Response:
        try:
            data = await read_json(request)
            client = request.client.host if request.client else "?"
            games.admit(client)
            table = await _run(_new_table, data, offered)
            gid, keys = games.add(table, client)
        except HTTPError as exc:
            return _error(exc)
        links = {str(p): f"/play/{gid}/{p}#key={k}" for p, k in keys.items()}
        return JSONResponse({"game": gid, "links": links}, status_code=201)

    def seat_view(request: Request) -> Response:
        try:
            entry = games.get(request.path_params["game"])
            seat = _seat(entry, request.path_params["seat"], request)
            if isinstance(entry, Finished):
                return JSONResponse(entry.views[seat])
            with entry.lock:
                return JSONResponse(entry.table.seat_data(seat, LOG_TAIL))
        except HTTPError as exc:
            return _error(exc)

    async def act(request: Request) -> Response:
        try:
            gid = request.path_params["game"]
            entry = games.get(gid)
            seat = _seat(entry, request.path_params["seat"], request)
            action, version = _action_of(await read_json(request))
            if isinstance(entry, Finished):
                raise HTTPError(409, "the game is over; no action is legal")
            return await _run(_act, gid, entry, seat, action, version)
        except HTTPError as exc:
            return _error(exc)

    def _act(gid: str, game: Game, seat: int, action: int, version: int | None) -> Response:
        table = game.table
        with game.lock:
            try:
                with table.transaction():  # the action, the AI after it and the answer
                    table.play(seat, action, version)
                    games.record(gid, game)  # on disk before the answer leaves
                    answer = JSONResponse(table.seat_data(seat, LOG_TAIL))
            except PlayError as exc:
                raise HTTPError(409, str(exc)) from None
            except TeammateError as exc:
                _log.error("game %s: %s", gid, exc, exc_info=exc.__cause__)
                answer = JSONResponse(
                    {"error": TEAMMATES_FAILED, "ended": table.ended}, status_code=500
                )
            except Exception:  # the transaction put the game back as it was
                _log.exception("game %s: an action failed and was undone", gid)
                if table.ended is not None:
                    _log.error("game %s stopped: %s", gid, table.ended, exc_info=table.stopped_by)
                    games.finish(gid, game)
                return JSONResponse(
                    {
                        "error": "the server failed; your action was not applied and the "
                        "game is unchanged"
                    },
                    status_code=500,
                )
            if table.closed:
                games.finish(gid, game)
            return answer

    def game_replay(request: Request) -> Response:
        try:
            gid = request.path_params["game"]
            entry = games.get(gid)
            _seat(entry, request.path_params["seat"], request)  # a seat's key opens it
            if isinstance(entry, Finished):
                try:
                    replay = archive.replay(gid, entry)
                except (OSError, ReplayError):
                    _log.exception("game %s: its record cannot be replayed", gid)
                    raise HTTPError(410, "this game's record can no longer be read") from None
                return _replay_step(replay, request)
            with entry.lock:
                if not entry.table.closed:
                    raise HTTPError(409, "the game is not over: its replay opens when it ends")
                if entry.replay is None:
                    entry.replay = Replay(entry.table.record())
            return _replay_step(entry.replay, request)
        except HTTPError as exc:
            return _error(exc)

    def list_teams(request: Request) -> Response:
        return JSONResponse(offered)

    def list_replays(request: Request) -> Response:
        return JSONResponse([] if shelf is None else shelf.names())

    def replay_step(request: Request) -> Response:
        try:
            if shelf is None:
                raise HTTPError(404, f"no replay {shown(request.path_params['name'])}")
            return _replay_step(shelf.replay(request.path_params["name"]), request)
        except HTTPError as exc:
            return _error(exc)

    routes = [
        Route("/", page("index.html")),
        Route("/play/{game}/{seat}", page("table.html")),
        Route("/play/{game}/{seat}/replay", page("replay.html")),
        Route("/replay/{name}", page("replay.html")),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game}/seats/{seat}", seat_view),
        Route("/api/games/{game}/seats/{seat}/actions", act, methods=["POST"]),
        Route("/api/games/{game}/seats/{seat}/replay", game_replay),
        Route("/api/teams", list_teams),
        Route("/api/replays", list_replays),
        Route("/api/replays/{name}", replay_step),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, allowed_hosts=allowed_hosts, body_timeout=body_timeout)],
        exception_handlers={StarletteHTTPException: _http_error},
    )
    app.state.games = games
    app.state.archive = archive  # its private folder lives as long as the app
    return app


_STEP = re.compile(r"^[0-9]{1,6}$")


def _replay_step(replay: Replay, request: Request) -> Response:
    """The step and viewer asked for in ``request`` (``?step=I&viewer=all|P``)."""
    text = request.query_params.get("step", "0")
    if not _STEP.match(text):
        raise HTTPError(
            400, f"step {shown(text, 20)} is not a step number; allowed: 0..{replay.steps}"
        )
    viewer_text = request.query_params.get("viewer")
    if viewer_text not in (None, "", "all") and not re.fullmatch(r"[0-9]{1,2}", viewer_text):
        raise HTTPError(
            400,
            f"viewer {shown(viewer_text, 20)} is not allowed; allowed: all or "
            f"0..{replay.num_players - 1}",
        )
    try:
        viewer = parse_viewer(viewer_text, replay.num_players)
        return JSONResponse(replay.step_data(int(text), viewer))
    except ReplayError as exc:
        raise HTTPError(400, str(exc)) from None


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Starlette's own refusals (no such route, wrong method) as ``{"error": ...}``."""
    words = {404: "nothing here", 405: "this method is not allowed here"}
    message = words.get(exc.status_code, str(exc.detail))
    return JSONResponse(
        {"error": f"{message}: {shown(request.url.path)}"}, status_code=exc.status_code
    )


async def _run(function, *args):
    """Run a blocking call (AI teammates thinking) off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)
