"""Replays: the evaluator's records, the terminal viewer (the real command's output),
the web viewer in a real Chromium, and what each viewer may see."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from web_helpers import LOCAL, launch_chromium, running_server, twins

from shipwreck_agents.evaluation.evaluate import evaluate
from shipwreck_agents.evaluation.records import ReplayError, load_record, replay_states
from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.seat_view import faded_cards, view_data
from shipwreck_apps.play.table import Table
from shipwreck_apps.web.app import create_app
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.view import make_view

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    """Four recorded games of the scripted team (two difficulties)."""
    folder = tmp_path_factory.mktemp("records")
    evaluate(
        "heuristic",
        "bayes",
        games=2,
        difficulties=["normal", "hard"],
        progress=False,
        record=str(folder),
    )
    return folder


def run_cli(*args: str, text_in: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shipwreck_apps", *args],
        input=text_in,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_evaluate_records_one_replayable_file_per_game(records: Path) -> None:
    names = sorted(p.name for p in records.iterdir())
    assert names == ["hard-00000.json", "hard-00001.json", "normal-00000.json", "normal-00001.json"]
    report = evaluate("heuristic", "bayes", games=2, difficulties=["hard"], progress=False)
    wins = 0
    for name in ("hard-00000.json", "hard-00001.json"):
        record = load_record(records / name)
        final = replay_states(record)[-1]  # checks the end against the record's result
        assert final.over and final.won == record["result"]["won"]
        assert record["players"] == {"play": "heuristic", "group": "bayes", "humans": []}
        wins += final.won
    assert wins == report["results"]["hard"]["wins"]


def test_an_edited_record_is_refused(records: Path) -> None:
    record = json.loads((records / "normal-00000.json").read_text())
    record["actions"][3] = 258
    with pytest.raises(ReplayError, match="action 3"):
        replay_states(record)
    record = json.loads((records / "normal-00000.json").read_text())
    record["result"]["score"] = 99
    with pytest.raises(ReplayError, match="record says"):
        replay_states(record)
    with pytest.raises(ReplayError, match="format"):
        load_record({"format": "x"})


def test_terminal_replay_steps_through_a_game_to_its_end(records: Path) -> None:
    path = records / "normal-00001.json"
    steps = len(load_record(path)["actions"])
    done = run_cli("replay", str(path), "--all")
    assert done.returncode == 0, done.stderr
    assert f"--- step {steps}/{steps} ---" in done.stdout
    assert "== Game over after" in done.stdout
    assert "In the bag (value: how many): 1: " in done.stdout  # the omniscient view
    stepped = run_cli("replay", str(path), "--viewer", "1", text_in="\n\n5\nb\nx\nq\n")
    assert stepped.returncode == 0, stepped.stderr
    out = stepped.stdout
    for step in (0, 1, 2, 5, 4):
        assert f"--- step {step}/{steps} ---" in out
    assert "'x': Enter, a step number" in out
    assert "Unseen copies" in out and "player 1 (you)" in out


def test_terminal_replay_of_a_viewer_hides_the_other_hands(records: Path) -> None:
    path = records / "hard-00000.json"
    replay = Replay(path)
    done = run_cli("replay", str(path), "--viewer", "2", "--all")
    assert done.returncode == 0, done.stderr
    screens = done.stdout.split("--- step ")[1:]
    assert len(screens) == replay.steps + 1
    for step, screen in enumerate(screens):
        s = replay.states[step]
        for seat, hand in enumerate(s.hands):
            if hand and seat != 2:
                assert f"seat {seat} player {seat}: holds {' '.join('?' * len(hand))};" in screen
            elif hand:
                assert f"seat 2 player 2 (you): holds {' '.join(map(str, hand))};" in screen


def test_bad_replay_arguments_are_refused(records: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for args, words in [
        (["replay", str(bad)], "not valid JSON"),
        (["replay", str(tmp_path / "missing.json")], "cannot read"),
        (["replay", str(records / "normal-00000.json"), "--viewer", "7"], "viewer '7'"),
    ]:
        done = run_cli(*args)
        assert done.returncode != 0
        assert words in done.stderr


def test_a_saved_game_replays_like_a_record(tmp_path: Path) -> None:
    table = Table(GameConfig(num_players=3), [0], "heuristic+bayes", seed=9)
    table.advance()
    while not table.over:
        table.act(0, table.legal(0)[0])
        table.advance()
    path = tmp_path / "saved.json"
    path.write_text(table.dumps())
    replay = Replay(path)
    assert replay.states[-1] == table.state
    assert replay.log == table.log


def test_replay_api_serves_a_viewer_only_their_view(records: Path) -> None:
    app = create_app(records)
    replay = Replay(records / "hard-00001.json")
    rng = np.random.default_rng(0)
    with TestClient(app, base_url=LOCAL) as client:
        assert client.get("/api/replays").json() == sorted(p.name for p in records.iterdir())
        for step in range(0, replay.steps + 1, 3):
            for viewer in range(3):
                r = client.get(f"/api/replays/hard-00001.json?step={step}&viewer={viewer}")
                body = r.json()
                s = replay.states[step]
                expected = view_data(make_view(s, viewer), replay.log[:step], None, faded_cards(s))
                assert {k: body[k] for k in expected if k != "log"} == {
                    k: v for k, v in expected.items() if k != "log"
                }
                # the log is the table's, each play with what it told (public facts)
                assert [{k: v for k, v in e.items() if k != "note"} for e in body["log"]] == [
                    {k: v for k, v in e.items() if k != "note"} for e in expected["log"]
                ]
                assert [e.get("note") for e in body["log"]] == replay.notes[:step]
                for twin in twins(s, viewer, rng, per_fate=1):
                    assert view_data(make_view(twin, viewer)) == view_data(make_view(s, viewer))
        everybody = client.get("/api/replays/hard-00001.json?step=1&viewer=all").json()
        assert everybody["player"] is None and "deck_order" in everybody
        last = client.get(f"/api/replays/hard-00001.json?step={replay.steps}").json()
        assert last["over"] and last["end_reason"].startswith(
            ("doom reached", "the group predicted")
        )
        for path, status in [
            ("/api/replays/..%2Fsecret.json", 404),
            ("/api/replays/nope.json", 404),
            ("/api/replays/hard-00001.json?step=99999", 400),
            ("/api/replays/hard-00001.json?step=x", 400),
            ("/api/replays/hard-00001.json?viewer=9", 400),
        ]:
            r = client.get(path)
            assert r.status_code == status, path
            assert r.json()["error"]


def test_a_replay_says_what_each_play_told(records: Path) -> None:
    """Issue 41, finding 5: each play of a replay carries its literal reading (the
    number line of the seat that played, right after the play), in the web data and in
    the terminal viewer."""
    replay = Replay(records / "normal-00000.json")
    data = replay.step_data(replay.steps, 1)
    noted = [e for e in data["log"] if e.get("note") and e["action"].startswith("play fate")]
    assert noted and all("this play says player " in e["note"] for e in noted)
    guesses = [e for e in data["log"] if e.get("note") and e["action"].startswith("predict")]
    assert all(e["note"].startswith("the number line then allowed ") for e in guesses)
    assert len(noted) + len(guesses) == sum(1 for e in data["log"] if e.get("note"))
    done = run_cli("replay", str(records / "normal-00000.json"), "--all")
    assert done.returncode == 0, done.stderr
    assert "(this play says player " in done.stdout


def test_web_replay_steps_and_switches_viewer(records: Path) -> None:
    from playwright.sync_api import sync_playwright

    with running_server(create_app(records)) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto(base + "/")
        page.click("text=normal-00000.json")
        page.wait_for_selector(".seat")
        assert page.evaluate("document.body.dataset.step") == "0"
        page.click("#next")
        page.wait_for_function("document.body.dataset.step === '1'")
        page.click("#last")
        page.wait_for_function("document.body.dataset.step !== '1'")
        assert "Game over" in page.inner_text(".status")
        page.click("#first")
        page.wait_for_function("document.body.dataset.step === '0'")
        assert page.locator(".seat .fate.own").count() == 2  # everybody: the active seat's 2 fates
        page.select_option("#viewer", "1")  # seat 0 drew: player 1 sees two hidden fates
        page.wait_for_function("document.querySelectorAll('.seat .fate.hidden').length === 2")
        assert page.locator(".seat .fate.own").count() == 0
        browser.close()
