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

Errors are 4xx with ``{"error": message}`` and change nothing: 400 malformed request,
403 wrong key, 404 unknown game / seat / replay, 409 not this seat's decision or an
illegal action, 503 too many games.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shipwreck_agents.records import ReplayError, write_record
from shipwreck_apps.play.replay_view import Replay, parse_viewer
from shipwreck_apps.play.table import PlayError, Table
from shipwreck_env.config import GameConfig

__all__ = ["MAX_GAMES", "Game", "create_app", "serve"]

STATIC = Path(__file__).parent / "static"
MAX_GAMES = 200
"""Games kept at once; the oldest finished game makes room for a new one."""
LOG_TAIL = 60
"""Log entries sent with each view."""
_REPLAY_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,120}\.json$")
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


class HTTPError(Exception):
    """A refused request: status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Game:
    """A table and the secret key of each person's seat."""

    table: Table
    keys: dict[int, str]
    lock: threading.Lock = field(default_factory=threading.Lock)
    replay: Replay | None = None
    """The finished game's replay (built when first asked for)."""
    recorded: bool = False


class Games:
    """Every game of the app, by id (thread-safe)."""

    def __init__(self) -> None:
        self._games: dict[str, Game] = {}
        self._lock = threading.Lock()

    def add(self, table: Table) -> tuple[str, Game]:
        game = Game(table, {p: secrets.token_urlsafe(18) for p in table.humans})
        with self._lock:
            if len(self._games) >= MAX_GAMES:
                done = [gid for gid, g in self._games.items() if g.table.over]
                if not done:
                    raise HTTPError(503, f"too many games in progress ({MAX_GAMES}); try later")
                del self._games[done[0]]
            gid = secrets.token_urlsafe(18)
            self._games[gid] = game
        return gid, game

    def get(self, gid: str) -> Game:
        with self._lock:
            game = self._games.get(gid)
        if game is None:
            raise HTTPError(404, f"no game {gid!r}")
        return game

    def __len__(self) -> int:
        return len(self._games)


def _error(exc: HTTPError) -> JSONResponse:
    return JSONResponse({"error": exc.message}, status_code=exc.status)


async def _json_body(request: Request) -> dict:
    body = await request.body()
    if len(body) > 10_000:
        raise HTTPError(400, "request body too large")
    try:
        data = json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPError(400, f"request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HTTPError(400, "request body must be a JSON object")
    return data


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
    table.advance()
    return table


MODELS = Path(__file__).resolve().parents[2] / "results" / "models"
"""The shipped trained models: the only model files a browser may name."""
_SCRIPTED = re.compile(r"^(random|literal|heuristic|bayes|oracle|convention)(:[0-9.,a-z]{1,20})?$")


def _check_teammates(spec: object) -> str:
    """``spec`` with shipped models named by absolute path; anything but scripted specs
    and shipped models is refused: a browser must not make the server load an arbitrary
    file (a model file is a pickle)."""
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
            "bayes, convention, oracle, ppo:results/models/NAME.pth, or PLAY+GROUP",
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


def create_app(replays: str | Path | None = None, record: str | Path | None = None) -> Starlette:
    """The web app; ``replays`` is a folder of replay records to offer, ``record`` a
    folder where every finished game is written as a replay record (both optional)."""
    games = Games()
    replay_dir = Path(replays) if replays else None
    record_dir = Path(record) if record else None
    replay_cache: dict[str, Replay] = {}

    def page(name: str):
        def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})

        return endpoint

    async def create_game(request: Request) -> Response:
        try:
            data = await _json_body(request)
            table = await _run(_new_table, data)
            gid, game = games.add(table)
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
            data = await _json_body(request)
            if set(data) != {"action"} or type(data["action"]) is not int:
                raise HTTPError(400, f"body must be {{'action': int}}, got {data!r}")
            return await _run(_act, game, seat, data["action"])
        except HTTPError as exc:
            return _error(exc)

    def _act(game: Game, seat: int, action: int) -> Response:
        with game.lock:
            try:
                game.table.act(seat, action)
            except PlayError as exc:
                raise HTTPError(409, str(exc)) from None
            game.table.advance()
            if game.table.over and record_dir is not None and not game.recorded:
                name = f"web-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.json"
                write_record(record_dir, name, game.table.record())
                game.recorded = True
            return JSONResponse(game.table.seat_data(seat, LOG_TAIL))

    def game_replay(request: Request) -> Response:
        try:
            game = games.get(request.path_params["game"])
            _seat(game, request.path_params["seat"], request)  # a seat's key opens it
            with game.lock:
                if not game.table.over:
                    raise HTTPError(409, "the game is not over: its replay opens when it ends")
                if game.replay is None:
                    game.replay = Replay(game.table.record())
            return _replay_step(game.replay, request)
        except HTTPError as exc:
            return _error(exc)

    def list_replays(request: Request) -> Response:
        if replay_dir is None or not replay_dir.is_dir():
            return JSONResponse([])
        names = sorted(p.name for p in replay_dir.glob("*.json") if _REPLAY_NAME.match(p.name))
        return JSONResponse(names[:1000])

    def replay_step(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            if replay_dir is None or not _REPLAY_NAME.match(name):
                raise HTTPError(404, f"no replay {name!r}")
            path = replay_dir / name
            if not path.is_file():
                raise HTTPError(404, f"no replay {name!r}")
            replay = replay_cache.get(name)
            if replay is None:
                try:
                    replay = Replay(path)
                except ReplayError as exc:
                    raise HTTPError(400, f"replay {name!r} cannot be shown: {exc}") from None
                if len(replay_cache) > 50:
                    replay_cache.clear()
                replay_cache[name] = replay
            return _replay_step(replay, request)
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
    app = Starlette(routes=routes, exception_handlers={StarletteHTTPException: _http_error})
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
) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    print(f"Shipwreck Arcana table: http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(create_app(replays, record), host=host, port=port, log_level="warning")
