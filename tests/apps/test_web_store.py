"""Issue 41, findings 1 and 3: a store one client cannot fill (finished games move to
disk and stay reachable, per-address limits on games created a minute), and a record
folder checked at start whose failures never block a game's end.

Authority: issue 41 and the module docstrings of ``apps/web/games.py``,
``apps/web/archive.py`` and ``apps/web/server.py``.
"""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient
from test_web_guard import Clock, create, finish, seat
from web_helpers import LOCAL, running_server

from shipwreck_agents.evaluation.records import load_record
from shipwreck_apps.web.app import create_app
from shipwreck_apps.web.games import Limits

PEOPLE = {"players": 2, "humans": [0, 1], "difficulty": "doomed", "teammates": "random"}
"""An all-human game, short (doomed)."""


def finish_people(client, gid: str, headers: dict[int, dict]) -> None:
    """Play an all-human game to its end through the API, with versions."""
    for _ in range(2000):  # bounded
        views = {
            p: client.get(f"/api/games/{gid}/seats/{p}", headers=h).json()
            for p, h in headers.items()
        }
        if views[0]["over"]:
            return
        p = next(p for p, v in views.items() if v["legal"])
        body = {"action": views[p]["legal"][-1]["action"], "version": views[p]["version"]}
        r = client.post(f"/api/games/{gid}/seats/{p}/actions", headers=headers[p], json=body)
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_one_client_finishing_games_fast_cannot_lock_another_out() -> None:
    """Issue 41, finding 1: a client creating all-human games and playing them to the end
    filled the store (finished games counted); every address then got 503 for an hour.
    Here one address creates and finishes games as fast as it can while another creates
    one: the second gets its game, and memory holds no finished game."""
    limits = Limits(max_games=4, per_client=2, per_minute=6, max_finished=100)
    app = create_app(limits=limits)
    hammer = TestClient(app, base_url=LOCAL, client=("10.0.0.1", 40000))
    other = TestClient(app, base_url=LOCAL, client=("10.0.0.2", 40000))
    created, refused = [], []
    enough = threading.Event()

    def hammering() -> None:
        for _ in range(40):  # bounded
            r = hammer.post("/api/games", json={**PEOPLE, "seed": len(created)})
            if r.status_code != 201:
                refused.append(r)
                if len(refused) >= 3:
                    break
                continue
            gid = r.json()["game"]
            keys = {p: {"X-Seat-Key": seat(r, p)[1]["X-Seat-Key"]} for p in (0, 1)}
            finish_people(hammer, gid, keys)
            created.append(gid)
            if len(created) >= limits.max_games + 1:
                enough.set()
        enough.set()

    thread = threading.Thread(target=hammering)
    thread.start()
    assert enough.wait(120)
    r = other.post("/api/games", json={**PEOPLE, "seed": 99})
    thread.join(120)
    assert r.status_code == 201, r.text
    assert len(created) > limits.max_games  # more finished games than the store holds
    assert all(x.status_code == 429 and "last minute" in x.json()["error"] for x in refused)
    assert len(app.state.games) == 1  # only the other client's game, in progress
    assert len(app.state.archive) == len(created)


def test_a_finished_game_is_served_from_disk_with_its_links_unchanged(tmp_path: Path) -> None:
    """Once over, a game leaves memory: its seat views, its replay and the refusal of a
    wrong key all come from the disk, where only hashes of the keys are written."""
    app = create_app(record=tmp_path)
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        r = create(client, humans=[0, 1], players=2, teammates="convention", seed=3)
        gid = r.json()["game"]
        headers = {p: seat(r, p)[1] for p in (0, 1)}
        table = app.state.games.get(gid).table
        while not table.over:
            p = table.waiting_for
            last = client.post(
                f"/api/games/{gid}/seats/{p}/actions",
                headers=headers[p],
                json={"action": table.legal(p)[-1], "version": table.version},
            ).json()
        assert len(app.state.games) == 0  # out of memory
        assert client.get(f"/api/games/{gid}/seats/{p}", headers=headers[p]).json() == last
        for q in (0, 1):
            view = client.get(f"/api/games/{gid}/seats/{q}", headers=headers[q]).json()
            assert view["player"] == q and view["over"] and view["version"] == table.version
            step = client.get(
                f"/api/games/{gid}/seats/{q}/replay?viewer=all&step={table.version}",
                headers=headers[q],
            )
            assert step.status_code == 200 and step.json()["over"]
        wrong = {"X-Seat-Key": headers[1]["X-Seat-Key"]}
        assert client.get(f"/api/games/{gid}/seats/0", headers=wrong).status_code == 403
        assert client.get(f"/api/games/{gid}/seats/0/replay", headers=wrong).status_code == 403
        assert client.get(f"/api/games/{gid}/seats/0").status_code == 403
        r = client.post(f"/api/games/{gid}/seats/0/actions", headers=headers[0], json={"action": 0})
        assert r.status_code == 409 and "over" in r.json()["error"]
        (record,) = tmp_path.iterdir()
        assert load_record(record)["actions"] == table.actions
        written = [*tmp_path.rglob("*"), *Path(app.state.archive._index).rglob("*")]
        text = "".join(p.read_text() for p in written if p.is_file())
        assert "keys" in text and not any(h["X-Seat-Key"] in text for h in headers.values())


def test_memory_and_disk_stay_bounded_and_the_oldest_finished_game_expires() -> None:
    """Past ``max_finished`` finished games the oldest leaves the archive (410, its
    private record deleted); the newer ones are still served."""
    app = create_app(limits=Limits(max_games=2, per_client=2, per_minute=100, max_finished=2))
    archive = app.state.archive
    with TestClient(app, base_url=LOCAL) as client:
        games = []
        for i in range(4):
            r = create(client, **PEOPLE, seed=i)
            gid = r.json()["game"]
            headers = {p: seat(r, p)[1] for p in (0, 1)}
            finish_people(client, gid, headers)
            games.append((gid, headers))
        assert len(app.state.games) == 0 and len(archive) == 2
        assert len(list(archive.records.iterdir())) == 2
        for gid, headers in games[:2]:
            r = client.get(f"/api/games/{gid}/seats/0", headers=headers[0])
            assert r.status_code == 410 and "finished games" in r.json()["error"]
        for gid, headers in games[2:]:
            assert client.get(f"/api/games/{gid}/seats/0", headers=headers[0]).json()["over"]


def test_an_address_creates_a_bounded_number_of_games_a_minute() -> None:
    clock = Clock()
    app = create_app(limits=Limits(per_client=10, per_minute=3), clock=clock)
    with TestClient(app, base_url=LOCAL, client=("10.0.0.1", 1)) as client:
        for _ in range(3):
            assert create(client).status_code == 201
        r = create(client)
        assert r.status_code == 429 and "at most 3" in r.json()["error"]
        with TestClient(app, base_url=LOCAL, client=("10.0.0.2", 1)) as neighbour:
            assert create(neighbour).status_code == 201  # a limit per address
        clock.now += 60
        assert create(client).status_code == 201


# --- finding 3: the record folder ---------------------------------------------------------


def test_serve_refuses_to_start_with_a_record_folder_it_cannot_write(
    tmp_path: Path, monkeypatch
) -> None:
    """Issue 41, finding 3: an unwritable --record folder started a server on which no
    game could end. Now serve refuses to start, in one line naming the folder."""
    from shipwreck_apps.cli import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # its games folder
    blocker = tmp_path / "file"
    blocker.write_text("")
    folder = blocker / "records"  # under a file: nobody can create it
    with pytest.raises(ValueError, match="records"):
        create_app(record=folder)
    with pytest.raises(SystemExit) as refused:
        main(["serve", "--record", str(folder), "--port", "1"])
    message = str(refused.value.code)
    assert str(folder) in message and "\n" not in message
    assert not (tmp_path / "state").exists()  # refused before its games folder is made
    assert create_app(record=tmp_path / "new" / "records").state.archive.records.is_dir()


def test_a_record_that_cannot_be_written_is_logged_and_the_game_still_ends(
    tmp_path: Path, caplog
) -> None:
    """Issue 41, finding 3: each game-ending action answered 500 "unchanged" and the
    server logged nothing. Now the action ends the game, the failure is logged, and the
    game stays in memory so its seats see the end and can replay it."""
    folder = tmp_path / "records"
    app = create_app(record=folder)
    with running_server(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        gid, headers = seat(create(client))
        shutil.rmtree(folder)
        folder.write_text("")  # the folder became a file: writing the record fails
        with caplog.at_level(logging.ERROR):
            view = finish(client, gid, headers)
        assert view["over"]
        assert any("could not be archived" in r.getMessage() for r in caplog.records)
        assert client.get(f"/api/games/{gid}/seats/0", headers=headers).json()["over"]
        replay = client.get(f"/api/games/{gid}/seats/0/replay?viewer=all", headers=headers)
        assert replay.status_code == 200
        assert len(app.state.games) == 1  # in memory, until it expires


def test_the_serve_flags_default_to_the_store_limits() -> None:
    from shipwreck_apps.cli import build_parser

    args = build_parser().parse_args(["serve"])
    limits = Limits()
    assert (args.games_per_minute, args.finished_games, args.idle_timeout) == (
        limits.per_minute,
        limits.max_finished,
        limits.idle_timeout,
    )


def test_serve_says_at_start_which_teams_it_does_not_offer(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    """Issue 41, finding 3: serve checks the extras of every team it would offer; a
    team that cannot be created here (a trained model without torch, simulated) is left
    out of the lobby, and serve says so when it starts."""
    import uvicorn

    import shipwreck_apps.web.teams as web_teams
    from shipwreck_apps.cli import main

    real = web_teams.make_team

    def without_torch(spec: str):
        if "ppo:" in spec:
            raise ModuleNotFoundError(f"policy {spec!r} needs the train extra (torch)")
        return real(spec)

    started = []
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))  # its default games folder
    web_teams._can_create.cache_clear()
    monkeypatch.setattr(web_teams, "make_team", without_torch)
    monkeypatch.setattr(uvicorn.Server, "run", lambda server: started.append(server.config))
    try:
        assert main(["serve", "--port", "8765"]) == 0
    finally:
        web_teams._can_create.cache_clear()
    err = capsys.readouterr().err
    assert "team ppo:results/models/selfplay.pth is not offered here" in err
    (config,) = started
    assert config.port == 8765 and config.http.__name__ == "TimedH11Protocol"
    assert (tmp_path / "shipwreck-arcana" / "games" / "progress").is_dir()
