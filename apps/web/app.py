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
    GET  /api/games/GAME/seats/SEAT          -> the seat's view       (X-Seat-Key)
    POST /api/games/GAME/seats/SEAT/actions  {action: int} -> the view after the AI
                                             teammates have played     (X-Seat-Key)
    GET  /api/games/GAME/seats/SEAT/replay?step=I&viewer=all|P
                                             -> a step of the finished game (X-Seat-Key)
    GET  /api/replays                        -> [name, ...]   (serve --replays DIR)
    GET  /api/replays/NAME?step=I&viewer=all|P -> that step as that viewer sees it

What it protects: teammates are checked before a game exists (a cheating or failing
team is a 400 naming it); an action is applied with the AI decisions after it, or not at
all; a game's replay opens only to its own seats' keys once it is over; the replay
folder shows only finished games; requests pass :class:`~shipwreck_apps.web.guard.Guard`
(host, origin, JSON only, body and JSON limits); games expire when idle
(:mod:`shipwreck_apps.web.games`).

Errors are ``{"error": message}`` and change nothing: 400 malformed request, 403 wrong
key or another site, 404 unknown game / seat / replay, 409 not this seat's decision, an
illegal action or a stopped game, 410 an expired game, 413 a body too large, 415 not
JSON, 421 a host not served, 429 too many games from one address, 503 too many games,
500 something failed (the answer says the game is unchanged).
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shipwreck_agents.records import ReplayError, write_record
from shipwreck_apps.play.replay_view import Replay, parse_viewer
from shipwreck_apps.play.table import PlayError, Table, TeammateError
from shipwreck_apps.web.games import Game, Games, Limits
from shipwreck_apps.web.guard import LOOPBACK, Guard, HTTPError, read_json
from shipwreck_apps.web.shelf import ReplayShelf
from shipwreck_env.config import GameConfig

__all__ = ["LOG_TAIL", "create_app", "serve"]

STATIC = Path(__file__).parent / "static"
LOG_TAIL = 60
"""Log entries sent with each view."""
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


def _error(exc: HTTPError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


def _new_table(data: dict) -> Table:
    unknown = set(data) - _GAME_FIELDS
    if unknown:
        raise HTTPError(400, f"unknown fields {sorted(unknown)}; allowed: {sorted(_GAME_FIELDS)}")
    players = data.get("players", 3)
    humans = data.get("humans", [0])
    seed = data.get("seed")
    teammates = data.get("teammates", "convention")
    if type(players) is not int:
        raise HTTPError(400, f"players {players!r} must be a number 2..5")
    if not isinstance(humans, list) or not humans or not all(type(h) is int for h in humans):
        raise HTTPError(400, f"humans {humans!r} must be a non-empty list of player numbers")
    if seed is not None and (type(seed) is not int or seed < 0):
        raise HTTPError(400, f"seed {seed!r} must be a non-negative number")
    teammates = _check_teammates(teammates)
    try:
        config = GameConfig(
            num_players=players,
            difficulty=data.get("difficulty", "normal"),
            card_sets=data.get("card_sets", "base"),
            group_decision=data.get("group_decision", "leader"),
            challenge_mode=data.get("challenge_mode", False),
        )
        table = Table(config, humans, teammates, seed)
    except (TypeError, ValueError) as exc:
        raise HTTPError(400, str(exc)) from None
    try:
        table.advance()
    except TeammateError as exc:
        raise HTTPError(500, f"{exc}; no game was created") from None
    return table


MODELS = Path(__file__).resolve().parents[2] / "results" / "models"
"""The shipped trained models: the only model files a browser may name."""
_SCRIPTED = re.compile(r"^(random|literal|heuristic|bayes|convention)(:[0-9.,a-z]{1,20})?$")


def _check_teammates(spec: object) -> str:
    """``spec`` with shipped models named by absolute path; anything but fair scripted
    specs and shipped models is refused: a browser must not make the server load an
    arbitrary file (a model file is a pickle), and the oracle cheats. (The table checks
    the team itself too: :class:`~shipwreck_apps.play.table.Table`.)"""
    if not isinstance(spec, str) or not 0 < len(spec) <= 200:
        raise HTTPError(400, f"teammates {spec!r} must be a policy spec")
    parts = []
    for part in spec.split("+", 1):
        if _SCRIPTED.match(part):
            parts.append(part)
            continue
        name, _, path = part.partition(":")
        if name == "ppo" and path:
            file = (MODELS.parent.parent / path).resolve()
            if file.parent == MODELS and file.suffix in (".pth", ".zip") and file.is_file():
                parts.append(f"ppo:{file}")
                continue
        raise HTTPError(
            400,
            f"teammates {spec!r} is not allowed here; allowed: random, literal, heuristic, "
            "bayes, convention, ppo:results/models/NAME.pth, or PLAY+GROUP",
        )
    return "+".join(parts)


def _seat(game: Game, seat_text: str, request: Request) -> int:
    try:
        seat = int(seat_text)
    except ValueError:
        raise HTTPError(404, f"no seat {seat_text!r}") from None
    key = game.keys.get(seat)
    if key is None:
        raise HTTPError(404, f"seat {seat} is not a person's seat at this game")
    given = request.headers.get("x-seat-key", "")
    if not secrets.compare_digest(given.encode(), key.encode()):
        raise HTTPError(403, f"this link's key does not open seat {seat}")
    return seat


def create_app(
    replays: str | Path | None = None,
    record: str | Path | None = None,
    *,
    allowed_hosts: Iterable[str] = LOOPBACK,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The web app.

    Args:
        replays: a folder of replay records to offer (finished games only).
        record: a folder where every finished game is written as a replay record.
        allowed_hosts: host names (without port) the app answers to.
        limits: game limits (:class:`~shipwreck_apps.web.games.Limits`).
        clock: seconds, for idle expiry (tests pass their own).
    """
    games = Games(limits or Limits(), clock)
    shelf = ReplayShelf(Path(replays)) if replays else None
    record_dir = Path(record) if record else None

    def page(name: str):
        def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name)

        return endpoint

    async def create_game(request: Request) -> Response:
        try:
            data = await read_json(request)
            table = await _run(_new_table, data)
            client = request.client.host if request.client else "?"
            gid, game = games.add(table, client)
        except HTTPError as exc:
            return _error(exc)
        links = {str(p): f"/play/{gid}/{p}#key={k}" for p, k in game.keys.items()}
        return JSONResponse({"game": gid, "links": links}, status_code=201)

    def seat_view(request: Request) -> Response:
        try:
            game = games.get(request.path_params["game"])
            seat = _seat(game, request.path_params["seat"], request)
            with game.lock:
                return JSONResponse(game.table.seat_data(seat, LOG_TAIL))
        except HTTPError as exc:
            return _error(exc)

    async def act(request: Request) -> Response:
        try:
            game = games.get(request.path_params["game"])
            seat = _seat(game, request.path_params["seat"], request)
            data = await read_json(request)
            if set(data) != {"action"} or type(data["action"]) is not int:
                raise HTTPError(400, f"body must be {{'action': int}}, got {data!r}")
            return await _run(_act, game, seat, data["action"])
        except HTTPError as exc:
            return _error(exc)

    def _act(game: Game, seat: int, action: int) -> Response:
        table = game.table
        with game.lock:
            try:
                with table.transaction():  # the action, the AI after it and the answer
                    table.play(seat, action)
                    answer = JSONResponse(table.seat_data(seat, LOG_TAIL))
                    if table.over and record_dir is not None and not game.recorded:
                        name = f"web-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.json"
                        write_record(record_dir, name, table.record())
                        game.recorded = True
                    return answer
            except PlayError as exc:
                raise HTTPError(409, str(exc)) from None
            except TeammateError as exc:
                return JSONResponse(
                    {
                        "error": f"{exc}. Your action was not applied and the game, "
                        "unchanged, has been stopped.",
                        "ended": table.ended,
                    },
                    status_code=500,
                )
            except Exception as exc:  # the transaction put the game back as it was
                return JSONResponse(
                    {
                        "error": f"the server failed ({type(exc).__name__}); your action "
                        "was not applied and the game is unchanged"
                    },
                    status_code=500,
                )

    def game_replay(request: Request) -> Response:
        try:
            game = games.get(request.path_params["game"])
            _seat(game, request.path_params["seat"], request)  # a seat's key opens it
            with game.lock:
                if not game.table.closed:
                    raise HTTPError(409, "the game is not over: its replay opens when it ends")
                if game.replay is None:
                    game.replay = Replay(game.table.record())
            return _replay_step(game.replay, request)
        except HTTPError as exc:
            return _error(exc)

    def list_replays(request: Request) -> Response:
        return JSONResponse([] if shelf is None else shelf.names())

    def replay_step(request: Request) -> Response:
        try:
            if shelf is None:
                raise HTTPError(404, f"no replay {request.path_params['name']!r}")
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
        Route("/api/replays", list_replays),
        Route("/api/replays/{name}", replay_step),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, allowed_hosts=allowed_hosts)],
        exception_handlers={StarletteHTTPException: _http_error},
    )
    app.state.games = games
    return app


def _replay_step(replay: Replay, request: Request) -> Response:
    """The step and viewer asked for in ``request`` (``?step=I&viewer=all|P``)."""
    try:
        step = int(request.query_params.get("step", "0"))
        viewer = parse_viewer(request.query_params.get("viewer"), replay.num_players)
        return JSONResponse(replay.step_data(step, viewer))
    except (ValueError, ReplayError) as exc:
        raise HTTPError(400, str(exc)) from None


async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Starlette's own refusals (no such route, wrong method) as ``{"error": ...}``."""
    return JSONResponse({"error": f"{exc.detail}: {request.url.path}"}, status_code=exc.status_code)


async def _run(function, *args):
    """Run a blocking call (AI teammates thinking) off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(function, *args)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    replays: str | None = None,
    record: str | None = None,
    *,
    allowed_hosts: Iterable[str] = (),
    idle_timeout: float = 3600.0,
) -> None:
    """Run the app with uvicorn until interrupted; it answers to the loopback names when
    ``host`` is a loopback address, else to ``host`` and ``allowed_hosts``."""
    import uvicorn

    names = {*allowed_hosts, *(LOOPBACK if host in LOOPBACK else (host,))}
    limits = Limits(idle_timeout=idle_timeout)
    app = create_app(replays, record, allowed_hosts=names, limits=limits)
    print(f"Shipwreck Arcana table: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
