"""Games that survive the server (issue 51, item 11): every game in progress is journaled
as it is played, and a server started again on the same folder resumes it at the same
links, exactly where it was. The real ``serve`` command is killed with SIGKILL between
actions and during one, started again, and each game finished through its links is
compared with an uninterrupted twin of the same seed and the same people's choices."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import httpx
import pytest
from web_helpers import LOCAL, free_port

from shipwreck_apps.play.table import Table
from shipwreck_apps.web.app import LOG_TAIL, create_app
from shipwreck_apps.web.journal import FolderBusy, Journal, read_journal
from shipwreck_env.rules.config import GameConfig

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "shipwreck_apps", "serve"]


def choose(view: dict) -> int:
    """The people's choices, a function of what they see (so a twin makes the same)."""
    legal = [a["action"] for a in view["legal"]]
    return legal[(view["version"] * 7 + view["turn"]) % len(legal)]


def twin_view(body: dict, seat: int, upto: int | None = None) -> tuple[Table, dict]:
    """An uninterrupted in-memory twin of a game created with ``body``, its person at
    ``seat`` playing :func:`choose` until the game ends (or ``upto`` of their choices)."""
    config = GameConfig(num_players=body["players"], difficulty=body.get("difficulty", "normal"))
    table = Table(config, body["humans"], body["teammates"], body["seed"])
    table.advance()
    done = 0
    while not table.closed and (upto is None or done < upto):
        view = table.seat_data(seat, LOG_TAIL)
        table.play(seat, choose(view), view["version"])
        done += 1
    return table, table.seat_data(seat, LOG_TAIL)


class Server:
    """A real ``shipwreck-arcana serve`` process on a free port and a games folder."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port
        self.base = f"http://127.0.0.1:{port}"
        self.log = folder.parent / f"serve-{port}-{time.monotonic_ns()}.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with open(self.log, "w") as out:
            self.process = subprocess.Popen(
                [*SERVE, "--port", str(port), "--games", str(folder)],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(self.base + "/api/teams", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("serve did not start:\n" + self.log.read_text())
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind runs."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def create(base: str, body: dict) -> tuple[str, dict]:
    r = httpx.post(base + "/api/games", json=body, headers={"Origin": base}, timeout=60)
    assert r.status_code == 201, r.text
    data = r.json()
    (link,) = data["links"].values()
    return data["game"], {"X-Seat-Key": link.split("#key=")[1]}


def view_of(base: str, gid: str, seat: int, headers: dict) -> dict:
    r = httpx.get(f"{base}/api/games/{gid}/seats/{seat}", headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def act(base: str, gid: str, seat: int, headers: dict, view: dict) -> httpx.Response:
    return httpx.post(
        f"{base}/api/games/{gid}/seats/{seat}/actions",
        json={"action": choose(view), "version": view["version"]},
        headers={**headers, "Origin": base},
        timeout=120,
    )


def play(base: str, gid: str, seat: int, headers: dict, moves: int | None = None) -> dict:
    """Play :func:`choose` through the link until the end (or ``moves`` choices)."""
    view = view_of(base, gid, seat, headers)
    done = 0
    while not view["over"] and not view["ended"] and (moves is None or done < moves):
        r = act(base, gid, seat, headers, view)
        assert r.status_code == 200, r.text
        view = r.json()
        done += 1
    return view


def send_and_kill(server: Server, gid: str, seat: int, headers: dict, view: dict) -> bytes:
    """Send an action over a raw socket and SIGKILL the server right after the request
    is out; returns what had come back by then (nothing: the kill fell inside it)."""
    body = json.dumps({"action": choose(view), "version": view["version"]}).encode()
    head = (
        f"POST /api/games/{gid}/seats/{seat}/actions HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{server.port}\r\nOrigin: {server.base}\r\n"
        f"X-Seat-Key: {headers['X-Seat-Key']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(head + body)
        time.sleep(0.002)
        conn.setblocking(False)
        try:
            seen = conn.recv(65536)
        except BlockingIOError:
            seen = b""
        server.kill()
    return seen


BODIES = [
    {"players": 3, "humans": [0], "teammates": "types", "seed": 11},
    {"players": 4, "humans": [2], "teammates": "heuristic+bayes", "seed": 21},
    {"players": 2, "humans": [1], "teammates": "natural", "seed": 13, "difficulty": "hard"},
]


@pytest.mark.slow
def test_a_killed_server_resumes_every_game_at_its_links_as_its_twin(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    server = Server(folder, free_port())
    games = []
    try:
        for i, body in enumerate(BODIES):
            gid, headers = create(server.base, body)
            seat = body["humans"][0]
            before = play(server.base, gid, seat, headers, moves=2 + i)
            assert not before["over"]
            games.append((body, gid, seat, headers, before))
        server.kill()  # between actions
        server = Server(folder, free_port())
        for _body, gid, seat, headers, before in games:
            again = view_of(server.base, gid, seat, headers)
            assert again == before  # exactly where it was, the teammates' reading too
        # once during an action: the request is sent whole, the kill comes before its answer
        body, gid, seat, headers, _ = games[0]
        view = view_of(server.base, gid, seat, headers)
        assert send_and_kill(server, gid, seat, headers, view) == b""
        server = Server(folder, free_port())
        resumed = view_of(server.base, gid, seat, headers)
        assert resumed["version"] >= view["version"]
        print(
            "the action cut by the kill:",
            "applied" if resumed["version"] > view["version"] else "not applied",
        )
        for body, gid, seat, headers, _ in games:
            end = play(server.base, gid, seat, headers)
            _, expected = twin_view(body, seat)
            assert end == expected, f"game {body} differs from its uninterrupted twin"
            assert end["over"]
        # finished games stay at their links after one more restart
        server.kill()
        server = Server(folder, free_port())
        for _body, gid, seat, headers, _ in games:
            assert view_of(server.base, gid, seat, headers)["over"]
    finally:
        server.stop()


# --- the journal, in process ----------------------------------------------------------------


def test_a_journal_cut_inside_an_action_is_read_up_to_its_last_whole_action(
    tmp_path: Path,
) -> None:
    """A kill in the middle of a write leaves half a line: the game comes back at the
    last whole action, and the actions after it are journaled on a clean line."""
    body = BODIES[1]
    folder = tmp_path / "games"
    app = create_app(games_folder=folder)
    client = TestClient(app, base_url=LOCAL)
    gid, headers = create_in(client, body)
    seat = body["humans"][0]
    view = play_in(client, gid, seat, headers, moves=3)
    (path,) = (folder / "progress").glob("*.jsonl")
    header, actions = read_journal(path)
    assert header["game"] == gid and actions == app.state.games.get(gid).table.actions
    assert gid not in path.name and "key" not in json.dumps(header).lower().replace("keys", "")
    client.close()
    app.state.games.journal.close()
    whole = path.read_bytes()
    cut = whole[: whole.rstrip(b"\n").rfind(b"\n") + 5]  # the last line cut after 4 bytes
    path.write_bytes(cut)
    app = create_app(games_folder=folder)
    client = TestClient(app, base_url=LOCAL)
    table = app.state.games.get(gid).table
    assert table.actions[: len(actions) - 1] == actions[:-1]
    assert table.waiting_for == seat  # the teammates finished the run the kill cut
    assert read_journal(path)[1] == table.actions  # rewritten whole, then appended
    end = play_in(client, gid, seat, headers)
    assert not path.exists()  # finished: archived
    _, expected = twin_view(body, seat)
    assert end == expected and view["version"] <= end["version"]


def create_in(client, body: dict) -> tuple[str, dict]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data = r.json()
    (link,) = data["links"].values()
    return data["game"], {"X-Seat-Key": link.split("#key=")[1]}


def play_in(client, gid: str, seat: int, headers: dict, moves: int | None = None) -> dict:
    view = client.get(f"/api/games/{gid}/seats/{seat}", headers=headers).json()
    done = 0
    while not view["over"] and (moves is None or done < moves):
        r = client.post(
            f"/api/games/{gid}/seats/{seat}/actions",
            json={"action": choose(view), "version": view["version"]},
            headers=headers,
        )
        assert r.status_code == 200, r.text
        view = r.json()
        done += 1
    return view


def test_an_action_is_on_disk_before_its_answer_and_a_finished_game_leaves_the_journal(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "games"
    app = create_app(games_folder=folder)
    client = TestClient(app, base_url=LOCAL)
    body = BODIES[2]
    gid, headers = create_in(client, body)
    seat = body["humans"][0]
    (path,) = (folder / "progress").glob("*.jsonl")
    for _ in range(3):
        view = play_in(client, gid, seat, headers, moves=1)
        assert len(read_journal(path)[1]) == view["version"]
    play_in(client, gid, seat, headers)
    assert not list((folder / "progress").glob("*.jsonl"))  # finished: archived instead
    assert client.get(f"/api/games/{gid}/seats/{seat}", headers=headers).json()["over"]


def test_one_games_folder_serves_one_server_at_a_time(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "games")
    with pytest.raises(FolderBusy, match=str(tmp_path / "games")):
        create_app(games_folder=tmp_path / "games")
    journal.close()
    create_app(games_folder=tmp_path / "games").state.games.journal.close()


def test_an_expired_journal_is_not_resumed(tmp_path: Path) -> None:
    from shipwreck_apps.web.games import Limits

    folder = tmp_path / "games"
    app = create_app(games_folder=folder)
    gid, headers = create_in(TestClient(app, base_url=LOCAL), BODIES[0])
    app.state.games.journal.close()
    (path,) = (folder / "progress").glob("*.jsonl")
    old = time.time() - 100
    os.utime(path, (old, old))
    app = create_app(games_folder=folder, limits=Limits(idle_timeout=50))
    client = TestClient(app, base_url=LOCAL)
    assert client.get(f"/api/games/{gid}/seats/0", headers=headers).status_code == 410
    assert not path.exists()


def test_a_games_folder_that_cannot_be_written_is_refused_in_one_line(tmp_path: Path) -> None:
    from shipwreck_apps.cli import main

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match="games folder"):
        create_app(games_folder=blocker / "games")
    with pytest.raises(SystemExit) as refused:
        main(["serve", "--games", str(blocker / "games"), "--port", "1"])
    message = str(refused.value.code)
    assert str(blocker / "games") in message and "\n" not in message


def test_an_unreadable_journal_is_set_aside_and_the_others_resume(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    app = create_app(games_folder=folder)
    gid, headers = create_in(TestClient(app, base_url=LOCAL), BODIES[0])
    app.state.games.journal.close()
    bad = folder / "progress" / ("0" * 64 + ".jsonl")
    bad.write_text('{"format": "something else"}\n')
    app = create_app(games_folder=folder)
    client = TestClient(app, base_url=LOCAL)
    assert client.get(f"/api/games/{gid}/seats/0", headers=headers).status_code == 200
    assert not bad.exists() and bad.with_suffix(".broken").exists()
