"""Issue 41, findings 2 and 4, over HTTP: actions that survive a flaky network (the
view's ``version`` in the body), refusals in sentences, the teams offered, strict Host
parsing and read timeouts, against a real server on a free local port.

Authority: issue 41 and the module docstrings of ``apps/web/app.py``, ``guard.py``,
``teams.py`` and ``server.py``.
"""

from __future__ import annotations

import copy
import itertools
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
import pytest
import uvicorn
from test_web_guard import GAME, create, seat
from web_helpers import free_port, running_server, twins

import shipwreck_apps.web.teams as web_teams
from shipwreck_apps.play.table import Table
from shipwreck_apps.web.app import create_app
from shipwreck_apps.web.games import Limits
from shipwreck_apps.web.server import server_config

PEOPLE = {"players": 2, "humans": [0, 1], "seed": 4, "teammates": "convention"}
"""An all-human game."""
ONE = {"players": 3, "humans": [0], "seed": 0, "teammates": "convention", "difficulty": "easy"}
"""One person and two AI teammates: the person decides again after the AI's moves."""


@pytest.fixture(scope="module")
def server():
    """One app on a real server for the module: yields (app, client)."""
    app = create_app(limits=Limits(max_games=200, per_client=200, per_minute=1000))
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        yield app, client


def people_game(client: httpx.Client) -> tuple[str, dict[int, dict]]:
    """A new all-human game: its id and each seat's headers."""
    r = create(client, **PEOPLE)
    gid = r.json()["game"]
    return gid, {p: seat(r, p)[1] for p in (0, 1)}


def current(client: httpx.Client, gid: str, headers: dict[int, dict]) -> tuple[int, dict]:
    """The seat that decides now and its view."""
    for p, h in headers.items():
        view = client.get(f"/api/games/{gid}/seats/{p}", headers=h).json()
        if view["legal"]:
            return p, view
    raise AssertionError("nobody decides")


def repeatable(app, client: httpx.Client, gid: str, headers: dict) -> tuple[dict, Table]:
    """Play seat 0's last legal action (with versions) until one of its legal actions,
    taken now, would be legal again at seat 0's next decision: where a repeated request
    became a second move. Returns its body and the game as it would be after it (a
    copy)."""
    table = app.state.games.get(gid).table
    url = f"/api/games/{gid}/seats/0"
    for _ in range(300):  # bounded
        view = client.get(url, headers=headers).json()
        assert view["legal"], "the game ended before a repeatable decision"
        for option in view["legal"]:
            body = {"action": option["action"], "version": view["version"]}
            after = copy.deepcopy(table)
            after.play(0, body["action"])
            if not after.closed and body["action"] in after.legal(0):
                return body, after
        assert client.post(url + "/actions", headers=headers, json=body).status_code == 200
    raise AssertionError("no repeatable decision in this game")


# --- finding 2: the action's version -------------------------------------------------------


def test_a_repeated_action_is_refused_and_never_becomes_a_second_move(server) -> None:
    """Issue 41, finding 2: the same body posted twice applied the second copy to the
    person's next decision (19 of 123 tries). With the view's version the copy is a 409
    and the game moves once, at each decision where the copy would have been legal."""
    app, client = server
    gid, headers = seat(create(client, **ONE))
    table = app.state.games.get(gid).table
    url = f"/api/games/{gid}/seats/0/actions"
    for _ in range(2):
        body, after = repeatable(app, client, gid, headers)
        first = client.post(url, headers=headers, json=body)
        assert first.status_code == 200 and first.json()["version"] == after.version
        for _copy in range(2):
            again = client.post(url, headers=headers, json=body)
            assert again.status_code == 409, again.text
            assert f"version {body['version']}" in again.json()["error"]
        assert table.actions == after.actions


@pytest.mark.parametrize("order", list(itertools.permutations("AaB")))
def test_reordered_requests_apply_only_at_the_version_they_were_chosen_at(
    server, order: tuple[str, ...]
) -> None:
    """A (chosen at version v), its copy a, and B (chosen at the person's next decision,
    after A's answer) arrive in any order: every action applied lands on the decision it
    was chosen for, A once; the rest are 409s."""
    app, client = server
    gid, headers = seat(create(client, **ONE))
    table = app.state.games.get(gid).table
    body, after = repeatable(app, client, gid, headers)
    later = {"action": after.legal(0)[0], "version": after.version}
    sent = {"A": body, "a": body, "B": later}
    applied = []
    for name in order:
        r = client.post(f"/api/games/{gid}/seats/0/actions", headers=headers, json=sent[name])
        assert r.status_code in (200, 409), r.text
        if r.status_code == 200:
            applied.append(name)
            assert table.actions[sent[name]["version"]] == sent[name]["action"]
    assert ("A" in applied) != ("a" in applied)  # exactly one copy of A
    assert ("B" in applied) == (order.index("B") > min(order.index("A"), order.index("a")))


def test_concurrent_copies_of_an_action_apply_once(server) -> None:
    """Thirty copies of one body posted at once, where a copy would be legal again: one
    200, twenty-nine 409s."""
    app, client = server
    gid, headers = seat(create(client, **ONE))
    table = app.state.games.get(gid).table
    body, after = repeatable(app, client, gid, headers)
    barrier = threading.Barrier(30)

    def post(_: int) -> httpx.Response:
        with httpx.Client(base_url=str(client.base_url), timeout=60) as own:
            barrier.wait()
            return own.post(f"/api/games/{gid}/seats/0/actions", headers=headers, json=body)

    with ThreadPoolExecutor(30) as pool:
        answers = list(pool.map(post, range(30)))
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [200] + [409] * 29, statuses
    assert table.actions == after.actions


def test_an_action_without_a_version_is_still_accepted(server) -> None:
    _, client = server
    gid, headers = people_game(client)
    p, view = current(client, gid, headers)
    r = client.post(
        f"/api/games/{gid}/seats/{p}/actions",
        headers=headers[p],
        json={"action": view["legal"][0]["action"]},
    )
    assert r.status_code == 200 and r.json()["version"] == view["version"] + 1


# --- finding 4: refusals in the project's words ---------------------------------------------

PYTHON = ("unhashable", "invalid literal", "Exceeds the limit", "Traceback", "Error", "<class")
"""Words of Python internals that must not reach a person."""


@pytest.mark.parametrize(
    "body",
    [
        {"difficulty": ["hard"]},
        {"difficulty": {"a": 1}},
        {"card_sets": {"base": 1}},
        {"card_sets": 7},
        {"group_decision": 3},
        {"challenge_mode": "yes"},
        {"players": "3"},
        {"players": 9},
        {"players": 2.5},
        {"humans": [[0]]},
        {"humans": "0"},
        {"seed": -1},
        {"seed": 2**64},
        {"seed": 1.5},
        {"teammates": ["convention"]},
        {"teammates": "convention:nan"},
        {"teammates": "convention:inf"},
        {"teammates": "random:1e999"},
        {"teammates": "random:" + "9" * 5000},
        {"teammates": "oracle"},
        {"teammates": "ppo:/etc/passwd"},
        {["x"].__repr__(): 1},
    ],
)
def test_a_bad_new_game_is_refused_in_a_sentence(server, body: dict) -> None:
    app, client = server
    before = len(app.state.games)
    r = client.post("/api/games", json={**GAME, **body})
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert not any(word in message for word in PYTHON), message
    assert 20 < len(message) < 400, message
    assert len(app.state.games) == before


@pytest.mark.parametrize(
    "suffix",
    [
        "/replay?step=abc",
        "/replay?step=" + "9" * 5000,
        "/replay?step=-1",
        "/replay?step=99999",
        "/replay?viewer=" + "9" * 5000,
        "/replay?viewer=x",
        "/replay?viewer=7",
    ],
)
def test_a_bad_replay_query_is_refused_in_a_sentence(server, suffix: str) -> None:
    app, client = server
    gid, headers = people_game(client)
    table = app.state.games.get(gid).table
    while not table.over:
        table.play(table.waiting_for, table.legal(table.waiting_for)[-1])
    app.state.games.finish(gid, app.state.games.get(gid))
    r = client.get(f"/api/games/{gid}/seats/0{suffix}", headers=headers[0])
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert not any(word in message for word in PYTHON) and len(message) < 200, message


@pytest.mark.parametrize(
    "body",
    [
        {"action": "1", "version": 0},
        {"action": 1, "version": "0"},
        {"action": 1, "version": -1},
        {"action": 1, "version": 1.5},
        {"action": 1, "version": [0]},
        {"action": [1]},
        {"version": 0},
        {"action": 1, "extra": 0},
        {"action": 1e999},
    ],
)
def test_a_bad_action_body_is_refused_in_a_sentence(server, body: dict) -> None:
    app, client = server
    gid, headers = people_game(client)
    content = str(body).replace("'", '"').replace("inf", "1e999")
    r = client.post(
        f"/api/games/{gid}/seats/0/actions",
        headers={**headers[0], "Content-Type": "application/json"},
        content=content,
    )
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert not any(word in message for word in PYTHON) and len(message) < 300, message
    assert app.state.games.get(gid).table.version == 0


def test_a_huge_seat_number_is_a_404_in_words(server) -> None:
    _, client = server
    gid, headers = people_game(client)
    r = client.get(f"/api/games/{gid}/seats/{'9' * 5000}", headers=headers[0])
    assert r.status_code == 404 and len(r.json()["error"]) < 200
    r = client.get("/api/games/" + "x" * 5000 + "/seats/0", headers=headers[0])
    assert r.status_code == 404 and len(r.json()["error"]) < 200


# --- finding 4: the teams offered ----------------------------------------------------------


def test_the_lobby_offers_only_teams_that_can_be_created_here(monkeypatch) -> None:
    """Issue 41, finding 4: the lobby suggested a ppo: team that failed with the play
    extra alone (500, ModuleNotFoundError). Without the train extra (simulated) the team
    is not offered, and asking for it anyway is a 400 naming the extra."""
    real = web_teams.make_team

    def without_torch(spec: str):
        if "ppo:" in spec:
            raise ModuleNotFoundError(f"policy {spec!r} needs the train extra (torch)")
        return real(spec)

    import shipwreck_apps.play.table as table_module

    web_teams._can_create.cache_clear()
    monkeypatch.setattr(web_teams, "make_team", without_torch)
    monkeypatch.setattr(table_module, "make_team", without_torch)
    try:
        app = create_app()
        with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
            offered = client.get("/api/teams").json()
            assert "convention" in offered and not any("ppo:" in t for t in offered)
            r = create(client, teammates="ppo:results/models/selfplay.pth")
            assert r.status_code == 400 and "train extra" in r.json()["error"], r.text
    finally:
        web_teams._can_create.cache_clear()
    monkeypatch.undo()
    app = create_app()
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        assert "ppo:results/models/selfplay.pth" in client.get("/api/teams").json()


# --- finding 4: Host parsing and read timeouts ---------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}@evil.example",
        "evil.example@127.0.0.1:{port}",
        "127.0.0.1:{port}:{port}",
        "127.0.0.1/x",
        "127.0.0.1:port",
        "::1",
        "[::1",
        "127.0.0.1 evil.example",
        "",
    ],
)
def test_a_malformed_host_is_refused(server, host: str) -> None:
    _, client = server
    port = client.base_url.port
    r = client.get("/api/replays", headers={"Host": host.format(port=port)})
    assert r.status_code == 421, (host, r.text)
    for good in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        assert client.get("/api/replays", headers={"Host": good}).status_code == 200, good


def timed_server(header_timeout: float, body_timeout: float):
    """The app on :func:`server_config`'s uvicorn with short timeouts, in a thread."""
    app = create_app(body_timeout=body_timeout)
    port = free_port()
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, header_timeout=header_timeout))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the server did not start"
        threading.Event().wait(0.05)
    return server, thread, port


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout, 30 s,
    fails the test: the server held the connection)."""
    sock.settimeout(30)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_slow_clients_are_cut_off() -> None:
    """Issue 41, finding 4: a client that never finished its headers, or its body, held
    its connection forever. Half the headers: the server closes the connection; half a
    body: 408 in words, then the connection closes; an idle connection after an answer
    is closed too."""
    server, thread, port = timed_server(header_timeout=1.0, body_timeout=1.0)
    host = f"127.0.0.1:{port}"
    try:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Ty".encode())
            assert read_all(sock) == b""
        with socket.create_connection(("127.0.0.1", port)) as sock:
            head = (
                f"POST /api/games HTTP/1.1\r\nHost: {host}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            )
            sock.sendall(head.encode() + b'{"players": ')
            answer = read_all(sock)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b"did not arrive within 1 s" in answer
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(f"GET /api/replays HTTP/1.1\r\nHost: {host}\r\n\r\nGET /api".encode())
            answer = read_all(sock)  # one answer, then the second request never ends
            assert answer.startswith(b"HTTP/1.1 200") and answer.count(b"HTTP/1.1") == 1
    finally:
        server.should_exit = True
        thread.join(timeout=20)


class Telling:
    """Wraps a policy; its first decision fails with an exception that quotes hidden
    facts of the game (what a real model's error might print about its own hand)."""

    def __init__(self, policy, table: Table) -> None:
        self.policy, self.table = policy, table

    def __getattr__(self, name):
        return getattr(self.policy, name)

    def act(self, *args, **kwargs):
        s = self.table.state
        raise RuntimeError(f"cannot decide: hands {s.hands}, deck {s.deck}")


def test_a_teammates_failure_tells_twin_games_apart_only_in_the_log(server, caplog) -> None:
    """Issue 41, finding 4: a teammate's exception text was sent to every seat, and it
    may quote hidden facts (that policy's own hand). Two games that differ only in facts
    player 0 cannot see give player 0 the same answers when a teammate fails with such
    an exception; the facts reach only the server's log."""
    app, client = server
    answers, hidden = [], []
    for twin in (False, True):
        r = create(client, teammates="convention", seed=2, humans=[0], players=3)
        gid, headers = seat(r)
        table = app.state.games.get(gid).table
        if twin:
            table.state = twins(table.state, 0, np.random.default_rng(0))[0]
        hidden.append((table.state.hands, table.state.deck))
        table.team.play = Telling(table.team.play, table)
        table.team.group = Telling(table.team.group, table)
        url = f"/api/games/{gid}/seats/0"
        view = client.get(url, headers=headers).json()
        body = {"action": view["legal"][0]["action"], "version": view["version"]}
        failed = client.post(url + "/actions", headers=headers, json=body)
        assert failed.status_code == 500
        after = client.get(url, headers=headers).json()
        answers.append((failed.json(), after))
    assert hidden[0] != hidden[1]
    assert answers[0] == answers[1]
    logged = [
        rec.exc_text or "" for rec in caplog.records if "cannot decide" in (rec.exc_text or "")
    ]
    assert len({text.splitlines()[-1] for text in logged}) == 2  # both games' facts
