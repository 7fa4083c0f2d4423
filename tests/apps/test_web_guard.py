"""The browser table under attack: each finding of issue 22 against a real server on a
free local port (httpx, raw sockets for the body limit), and a bounded load test.

Authority: issue 22 ("The table, hardened") and the module docstrings of
``apps/web/app.py``, ``apps/web/guard.py`` and ``apps/web/games.py``.
"""

from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
from test_play_table import Flaky
from web_helpers import running_server

from shipwreck_agents.evaluation.records import write_record
from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.table import Table
from shipwreck_apps.web.app import create_app
from shipwreck_apps.web.games import Limits
from shipwreck_apps.web.guard import MAX_BODY
from shipwreck_env.rules.config import GameConfig

GAME = {"teammates": "heuristic+bayes", "seed": 1, "difficulty": "easy", "humans": [0]}


class Clock:
    """A clock the test moves by hand (idle expiry without waiting)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def create(client: httpx.Client, **body) -> httpx.Response:
    return client.post("/api/games", json={**GAME, **body})


def seat(response: httpx.Response, player: int = 0) -> tuple[str, dict]:
    """The game id and the headers of ``player``'s seat in a 201 answer."""
    data = response.json()
    key = data["links"][str(player)].split("#key=")[1]
    return data["game"], {"X-Seat-Key": key}


def finish(client: httpx.Client, gid: str, headers: dict) -> dict:
    """Play the game to its end through the API (last legal action each time)."""
    url = f"/api/games/{gid}/seats/0"
    view = client.get(url, headers=headers).json()
    for _ in range(2000):  # bounded
        if view["over"]:
            return view
        r = client.post(
            url + "/actions", headers=headers, json={"action": view["legal"][-1]["action"]}
        )
        assert r.status_code == 200, r.text
        view = r.json()
    raise AssertionError("the game did not end")


@pytest.fixture()
def server():
    """A fresh app on a real server: yields (app, client)."""
    app = create_app()
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        yield app, client


# --- finding 1: cheating teammates -------------------------------------------------------


@pytest.mark.parametrize("spec", ["oracle", "heuristic+oracle", "convention+oracle"])
def test_a_cheating_teammate_is_refused_naming_the_spec(server, spec: str) -> None:
    app, client = server
    for mode in ("leader", "vote"):
        r = create(client, teammates=spec, group_decision=mode)
        assert r.status_code == 400 and spec in r.json()["error"], r.text
        assert "oracle" not in r.json()["error"].split("allowed:")[-1]
    assert len(app.state.games) == 0


# --- finding 2: replays ------------------------------------------------------------------


def test_the_replay_folder_shows_only_finished_games(tmp_path: Path) -> None:
    """An unfinished ``play --save`` file or record is neither listed nor served, not even
    as ``viewer=all``; a finished record is."""
    config = GameConfig(num_players=3, difficulty="easy")
    unfinished = Table(config, [0], "convention", seed=2)
    unfinished.advance()
    (tmp_path / "saved.json").write_text(unfinished.dumps())
    write_record(tmp_path, "partial.json", unfinished.record())
    lying = unfinished.record()
    lying["result"]["over"] = True  # says it is over; replaying it says otherwise
    write_record(tmp_path, "lying.json", lying)
    finished = Table(config, [0], "convention", seed=2)
    finished.advance()
    while not finished.over:
        finished.play(0, finished.legal(0)[-1])
    write_record(tmp_path, "done.json", finished.record())
    with running_server(create_app(tmp_path)) as base, httpx.Client(base_url=base) as client:
        assert client.get("/api/replays").json() == ["done.json", "lying.json"]
        for name in ("saved.json", "partial.json", "lying.json"):
            r = client.get(f"/api/replays/{name}?viewer=all&step=1")
            assert r.status_code == 403 and "finished" in r.json()["error"], name
            assert "deck_order" not in r.text
        r = client.get("/api/replays/done.json?viewer=all&step=1")
        assert r.status_code == 200 and "deck_order" in r.json()


def test_a_games_replay_opens_only_to_its_own_seats_once_it_is_over(server) -> None:
    app, client = server
    gid, headers = seat(create(client, humans=[0, 1]))
    other_gid, other_headers = seat(create(client))
    replay = f"/api/games/{gid}/seats/0/replay?viewer=all"
    assert client.get(replay, headers=headers).status_code == 409  # not over yet
    table = app.state.games.get(gid).table
    while not table.over:
        table.play(table.waiting_for, table.legal(table.waiting_for)[-1])
    assert client.get(replay).status_code == 403
    assert client.get(replay, headers=other_headers).status_code == 403
    assert client.get(f"/api/games/{other_gid}/seats/0/replay", headers=headers).status_code == 403
    assert client.get(replay, headers=headers).status_code == 200


def test_serve_refuses_replays_off_this_machine_unless_public(tmp_path: Path, capsys) -> None:
    from shipwreck_apps.cli import main

    with pytest.raises(SystemExit, match="--public-replays"):
        main(["serve", "--host", "192.0.2.1", "--replays", str(tmp_path)])
    with pytest.raises(SystemExit, match="--allowed-host"):
        main(["serve", "--host", "0.0.0.0"])
    with pytest.raises(SystemExit) as refused:  # argparse: usage, one line, exit 2
        main(["serve", "--idle-timeout", "0"])
    assert refused.value.code == 2
    assert "argument --idle-timeout: 0 is not allowed" in capsys.readouterr().err


# --- finding 3: teammates that fail ------------------------------------------------------


def test_a_teammate_that_fails_at_run_time_is_refused_at_creation(server, monkeypatch) -> None:
    """A team that fails on its first decision (made to, as ``convention:k0`` once did by
    recursing forever) is refused before a game exists."""
    from shipwreck_agents.convention.team import ConventionPolicy

    def recursing(*args, **kwargs) -> int:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(ConventionPolicy, "act", recursing)
    app, client = server
    r = create(client, teammates="convention:k0")
    assert r.status_code == 400, r.text
    assert "convention:k0" in r.json()["error"] and "RecursionError" in r.json()["error"]
    assert len(app.state.games) == 0


def test_a_teammate_failing_after_an_action_leaves_the_game_unchanged_and_stopped(
    server, caplog
) -> None:
    app, client = server
    gid, headers = seat(create(client, teammates="convention", seed=2))
    table = app.state.games.get(gid).table
    before = (table.state.copy(), list(table.actions))
    table.team.play = Flaky(table.team.play, 1)
    url = f"/api/games/{gid}/seats/0"
    action = client.get(url, headers=headers).json()["legal"][0]["action"]
    r = client.post(url + "/actions", headers=headers, json={"action": action})
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    assert "not applied" in r.json()["error"] and "failed to decide" in r.json()["ended"]
    assert table.state == before[0] and table.actions == before[1]
    view = client.get(url, headers=headers).json()
    assert "failed to decide" in view["ended"] and view["legal"] == []
    # issue 41, finding 4: the exception's text (it may quote that policy's own hand)
    # reaches the server's log, never a seat
    assert "the model broke" not in r.text + json.dumps(view)
    assert any("the model broke" in (rec.exc_text or "") for rec in caplog.records)
    r = client.post(url + "/actions", headers=headers, json={"action": action})
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert client.get(url + "/replay", headers=headers).status_code == 200  # it is closed
    # a stopped game left memory: it counts against nobody's games in progress
    assert len(app.state.games) == 0


def test_any_failure_answers_json_and_changes_nothing(server, monkeypatch) -> None:
    app, client = server
    gid, headers = seat(create(client))
    table = app.state.games.get(gid).table
    before = (table.state.copy(), list(table.actions))
    monkeypatch.setattr(Table, "seat_data", lambda *a, **k: 1 / 0)
    url = f"/api/games/{gid}/seats/0"
    r = client.get(url, headers=headers)
    assert r.status_code == 500 and "nothing was changed" in r.json()["error"]
    r = client.post(url + "/actions", headers=headers, json={"action": table.legal(0)[0]})
    assert r.status_code == 500 and "not applied" in r.json()["error"]
    # the failure came after the action, in the answer: the action is undone with it
    assert table.state == before[0] and table.actions == before[1] and table.ended is None
    monkeypatch.undo()
    assert client.get(url, headers=headers).json()["version"] == len(before[1])


# --- findings 4 and 8: limits and expiry -------------------------------------------------


def test_a_client_address_holds_a_bounded_number_of_games_in_progress() -> None:
    app = create_app(limits=Limits(max_games=50, per_client=3))
    with running_server(app) as base, httpx.Client(base_url=base) as client:
        for _ in range(3):
            assert create(client).status_code == 201
        r = create(client)
        assert r.status_code == 429 and "at most 3" in r.json()["error"]


def test_idle_games_expire_and_the_page_is_told() -> None:
    clock = Clock()
    app = create_app(limits=Limits(max_games=2, per_client=2, idle_timeout=60), clock=clock)
    with running_server(app) as base, httpx.Client(base_url=base) as client:
        gid, headers = seat(create(client))
        assert create(client).status_code == 201
        assert create(client).status_code == 429  # full, both in progress
        clock.now += 59
        assert client.get(f"/api/games/{gid}/seats/0", headers=headers).status_code == 200
        clock.now += 30  # the other game is now idle 89 s, this one 30 s
        assert create(client).status_code == 201
        clock.now += 60
        r = client.get(f"/api/games/{gid}/seats/0", headers=headers)
        assert r.status_code == 410 and "expired" in r.json()["error"]


def test_a_finished_game_stays_reachable_whatever_the_load() -> None:
    """Issue 22, finding 8: on a full server the next new game evicted a game that had
    just finished. Issue 41, finding 1: finished games then filled the store instead;
    now they leave memory for the disk and stay reachable after the idle timeout."""
    clock = Clock()
    app = create_app(limits=Limits(max_games=1, per_client=5, idle_timeout=600), clock=clock)
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        gid, headers = seat(create(client))
        finish(client, gid, headers)
        assert create(client).status_code == 201  # the finished game holds no room
        r = create(client)
        assert r.status_code == 503 and "expires" in r.json()["error"]
        clock.now += 6000
        replay = client.get(f"/api/games/{gid}/seats/0/replay?viewer=all", headers=headers)
        assert replay.status_code == 200
        assert client.get(f"/api/games/{gid}/seats/0", headers=headers).json()["over"]


# --- findings 4 and 5: cross-site requests -----------------------------------------------


def test_cross_site_requests_are_refused(server) -> None:
    app, client = server
    port = str(client.base_url).rsplit(":", 1)[1].rstrip("/")
    body = json.dumps(GAME)
    cases = [
        ({"Content-Type": "text/plain"}, 415),  # a simple cross-site request
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403),
        ({"Content-Type": "application/json", "Origin": "null"}, 403),
        ({"Content-Type": "application/json", "Origin": "http://localhost:1"}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
        ({"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403),
        ({"Content-Type": "application/json", "Host": "evil.example"}, 421),  # DNS rebinding
        ({"Content-Type": "application/json", "Host": f"evil.example:{port}"}, 421),
    ]
    for headers, status in cases:
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == status, (headers, r.text)
        assert r.json()["error"]
    assert len(app.state.games) == 0
    r = client.get("/", headers={"Host": "evil.example"})
    assert r.status_code == 421  # nothing is served under a name the server does not serve
    same = {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"}
    assert client.post("/api/games", content=body, headers=same).status_code == 201
    local = {"Content-Type": "application/json", "Host": f"localhost:{port}"}
    assert client.post("/api/games", content=body, headers=local).status_code == 201


def test_every_api_answer_is_not_cached(server) -> None:
    _, client = server
    gid, headers = seat(create(client))
    for r in (
        create(client),
        client.get(f"/api/games/{gid}/seats/0", headers=headers),
        client.get(f"/api/games/{gid}/seats/0"),
        client.get("/api/games/nope/seats/0"),
        client.get("/api/replays"),
        client.post("/api/games", content=b"x", headers={"Content-Type": "text/plain"}),
    ):
        assert r.headers["cache-control"] == "no-store", r.url


# --- findings 5 and 6: bodies ------------------------------------------------------------


def raw_request(base: str, head: str, body: bytes, pause: float = 0.0) -> tuple[int, bytes]:
    """Send ``head`` and ``body`` on a raw socket (without waiting for the server to
    read all of it); returns the status and the answer's body."""
    host, port = base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        sock.sendall(head.encode() + body)
        time.sleep(pause)
        data = b""
        while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < 2:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


def test_a_large_body_is_refused_without_being_read(server) -> None:
    """Issue 22, finding 5: the whole body was read before the size check (four 50 MB
    bodies took the server from 353 to 600 MB). The server answers 413 after at most
    its limit, whether the body announces its length or comes in chunks."""
    app, client = server
    base = str(client.base_url).rstrip("/")
    host = base.split("//")[1]
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        "Content-Length: 50000000\r\n\r\n"
    )
    status, body = raw_request(base, head, b"{" + b" " * 1000)  # the other 50 MB never come
    assert status == 413 and b"at most" in body
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b" " * 4000
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // 4000 + 2))
    status, body = raw_request(base, head, chunks)  # no last chunk: the body never ends
    assert status == 413 and b"over" in body
    assert len(app.state.games) == 0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"seed": ' + b"9" * 4400 + b"}", "digits"),
        (b"[" * 4000 + b"]" * 4000, "nests"),
        (b'{"humans": ' + b"[" * 4900 + b"]" * 4900 + b"}", "nests"),
        (b'{"seed": NaN}', "NaN"),
        (b'{"seed": 1', "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_hostile_json_gets_a_json_400(server, body: bytes, words: str) -> None:
    """Issue 22, finding 6: a 4,300-digit integer or nesting ~5,000 deep gave a
    plain-text 500."""
    _, client = server
    assert len(body) <= MAX_BODY
    r = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and words in r.json()["error"], r.text
    gid, headers = seat(create(client))
    r = client.post(
        f"/api/games/{gid}/seats/0/actions",
        content=body,
        headers={**headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 400 and words in r.json()["error"], r.text


# --- the load test -----------------------------------------------------------------------


def rss_mb() -> float:
    """This process's resident memory (the server runs in it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_a_bounded_load_gets_only_2xx_and_4xx_and_moves_games_only_by_legal_actions() -> None:
    """1,000 requests from 20 concurrent clients: new games, views, legal and illegal
    actions, wrong keys, hostile bodies, replays. Every answer is 2xx or 4xx, memory
    stays bounded, and every game holds exactly the person actions that were answered
    200 (no game moved without a legal action); it must take under a minute."""
    app = create_app(limits=Limits(max_games=60, per_client=40))
    accepted: dict[str, int] = {}
    statuses: list[int] = []
    with running_server(app) as base:
        with httpx.Client(base_url=base, timeout=60) as client:
            games = [seat(create(client, seed=i)) for i in range(20)]
        start_mb = rss_mb()

        def worker(w: int) -> None:
            rng = np.random.default_rng(w)
            with httpx.Client(base_url=base, timeout=60) as client:
                for _ in range(50):
                    gid, headers = games[int(rng.integers(len(games)))]
                    url = f"/api/games/{gid}/seats/0"
                    kind = int(rng.integers(8))
                    if kind == 0:
                        r = create(client, seed=int(rng.integers(1000)))
                    elif kind == 1:
                        r = client.get(url, headers={"X-Seat-Key": "wrong"})
                    elif kind == 2:
                        r = client.post(url + "/actions", headers=headers, json={"action": 10_000})
                    elif kind == 3:
                        r = client.post(
                            "/api/games",
                            content=b"[" * 3000,
                            headers={"Content-Type": "application/json"},
                        )
                    elif kind == 4:
                        r = client.get(url + "/replay?viewer=all", headers=headers)
                    else:
                        view = client.get(url, headers=headers)
                        statuses.append(view.status_code)
                        legal = view.json().get("legal") or [{"action": 0}]
                        action = legal[int(rng.integers(len(legal)))]["action"]
                        r = client.post(url + "/actions", headers=headers, json={"action": action})
                        if r.status_code == 200:
                            accepted[gid] = accepted.get(gid, 0) + 1
                    statuses.append(r.status_code)

        with ThreadPoolExecutor(20) as pool:
            list(pool.map(worker, range(20)))
        grown = rss_mb() - start_mb
    assert len(statuses) >= 1000  # no time limit: speed is measured in benchmarks
    assert all(200 <= s < 500 for s in statuses), sorted(set(statuses))
    assert grown < 150, grown
    for gid, _ in games:
        table = app.state.games.get(gid).table
        people = sum(1 for e in table.log if e["by"] == "person")
        assert people == accepted.get(gid, 0), gid
        assert Replay(table.record()).states[-1] == table.state  # every step was legal


def test_the_docs_state_the_limits_the_server_enforces() -> None:
    from shipwreck_apps.web.guard import BODY_TIMEOUT, MAX_DEPTH, MAX_INT_DIGITS
    from shipwreck_apps.web.server import HEADER_TIMEOUT

    readme = Path(__file__).resolve().parents[2] / "docs" / "play.md"
    text = " ".join(readme.read_text().split())
    limits = Limits()
    for phrase in (
        f"default {limits.idle_timeout:g}",
        f"Each client address may hold at most {limits.per_client} games in progress and "
        f"create at most {limits.per_minute} games a minute (429",
        f"at most {limits.max_games} games in progress in all (503)",
        f"The newest {limits.max_finished:,} finished games stay reachable",
        f"headers within {HEADER_TIMEOUT:g} s and its body within {BODY_TIMEOUT:g} s",
        f"bodies over {MAX_BODY // 1000} KB are refused while reading (413)",
        f"JSON nested over {MAX_DEPTH} deep or with integers over {MAX_INT_DIGITS} digits",
    ):
        assert phrase in text, phrase
