"""The browser table: the API's answers and refusals, concurrent games, and real
Chromium sessions through Playwright against a real server on a free local port --
a whole game by clicking, two people at one table, and the no-leak check of every
response against the server-side state (twin states)."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_play_table import reference_readings
from web_helpers import LOCAL, chromium_session, running_server, twins

from shipwreck_apps.play.replay_view import Replay
from shipwreck_apps.play.seat_view import faded_cards, view_data
from shipwreck_apps.play.table import Table
from shipwreck_apps.web.app import LOG_TAIL, create_app
from shipwreck_env.rules.config import GameConfig
from shipwreck_env.rules.view import make_view

with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ARTIFACTS = Path(__file__).resolve().parents[2] / "results" / "screenshots"
SERVER_ONLY = {
    "log",
    "posterior",
    "version",
    "humans",
    "teammates",
    "ended",
    "end_reason",
    "model_previews",
}


def seen_by(s, player: int) -> dict:
    """What ``player`` may see of ``s``: their view, with the faded cards (public)."""
    return view_data(make_view(s, player), (), None, faded_cards(s))


def new_game(client, **body) -> tuple[str, dict[int, str]]:
    """Create a game; returns its id and each person's seat key."""
    r = client.post("/api/games", json={"teammates": "heuristic+bayes", "seed": 1, **body})
    assert r.status_code == 201, r.text
    data = r.json()
    keys = {int(seat): link.split("#key=")[1] for seat, link in data["links"].items()}
    return data["game"], keys


_TABLES: dict = {}


def table_of(app, gid: str) -> Table:
    """The table of game ``gid``: from the app while it is in memory, else as it was
    last seen here (a finished game leaves memory for its record on disk)."""
    table = getattr(app.state.games.get(gid), "table", None)
    if table is not None:
        _TABLES[app, gid] = table
        return table
    return _TABLES[app, gid]


# --- the API ------------------------------------------------------------------------------


@pytest.fixture()
def app_client():
    app = create_app()
    with TestClient(app, base_url=LOCAL) as client:
        yield app, client


def test_a_seat_gets_its_own_view_with_its_key(app_client) -> None:
    app, client = app_client
    gid, keys = new_game(client, humans=[0])
    r = client.get(f"/api/games/{gid}/seats/0", headers={"X-Seat-Key": keys[0]})
    assert r.status_code == 200
    data = r.json()
    table = table_of(app, gid)
    assert data["player"] == 0 and data["version"] == len(table.actions)
    expected = seen_by(table.state, 0)
    assert {k: v for k, v in data.items() if k not in SERVER_ONLY} == {
        k: v for k, v in expected.items() if k not in SERVER_ONLY
    }


def test_bad_requests_get_4xx_and_change_nothing(app_client) -> None:
    app, client = app_client
    gid, keys = new_game(client, humans=[0, 1])
    table = table_of(app, gid)
    before = (table.state.copy(), list(table.actions))
    decider = table.state.decider
    other = 1 - decider
    url = f"/api/games/{gid}/seats"
    legal = table.legal(decider)
    illegal = next(a for a in range(259) if a not in legal)
    cases = [
        ("get", "/api/games/nope/seats/0", {"X-Seat-Key": keys[0]}, None, 404),
        ("get", f"{url}/2", {"X-Seat-Key": keys[0]}, None, 404),  # an AI seat
        ("get", f"{url}/7", {"X-Seat-Key": keys[0]}, None, 404),
        ("get", f"{url}/0", {}, None, 403),
        ("get", f"{url}/1", {"X-Seat-Key": keys[0]}, None, 403),  # one seat's key, another seat
        (
            "post",
            f"{url}/{decider}/actions",
            {"X-Seat-Key": keys[other]},
            {"action": legal[0]},
            403,
        ),
        ("post", f"{url}/{decider}/actions", {"X-Seat-Key": keys[decider]}, {"action": "1"}, 400),
        ("post", f"{url}/{decider}/actions", {"X-Seat-Key": keys[decider]}, {"act": 1}, 400),
        ("post", f"{url}/{decider}/actions", {"X-Seat-Key": keys[decider]}, [1], 400),
        (
            "post",
            f"{url}/{decider}/actions",
            {"X-Seat-Key": keys[decider]},
            {"action": illegal},
            409,
        ),
        ("post", f"{url}/{decider}/actions", {"X-Seat-Key": keys[decider]}, {"action": 9999}, 409),
        ("post", f"{url}/{other}/actions", {"X-Seat-Key": keys[other]}, {"action": legal[0]}, 409),
        ("get", f"{url}/{decider}/replay", {"X-Seat-Key": keys[decider]}, None, 409),  # not over
        ("delete", f"{url}/{decider}", {"X-Seat-Key": keys[decider]}, None, 415),  # not JSON
        ("delete", f"{url}/{decider}", {"X-Seat-Key": keys[decider]}, {}, 405),
    ]
    for method, path, headers, body, status in cases:
        r = client.request(method, path, headers=headers, json=body)
        assert r.status_code == status, (path, body, r.text)
        assert r.json()["error"]
    json_type = {"Content-Type": "application/json"}
    r = client.post(
        f"{url}/{decider}/actions", headers={"X-Seat-Key": keys[decider], **json_type}, content=b"{"
    )
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    assert table.state == before[0] and table.actions == before[1]


def test_bad_new_games_are_refused(app_client) -> None:
    _, client = app_client
    for body, words in [
        ({"players": 9}, "players must be"),
        ({"difficulty": "silly"}, "difficulty"),
        ({"humans": []}, "humans"),
        ({"humans": [5]}, "human seats"),
        ({"teammates": "ppo:/etc/passwd"}, "not allowed"),
        ({"teammates": "ppo:results/models/../../pyproject.toml"}, "not allowed"),
        ({"colour": "red"}, "unknown fields"),
    ]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, body
        assert words in r.json()["error"]


def test_a_shipped_model_can_be_a_teammate(app_client) -> None:
    app, client = app_client
    gid, keys = new_game(client, humans=[1], teammates="ppo:results/models/selfplay.pth")
    assert table_of(app, gid).team.play.name.startswith("ppo:")
    view = client.get(f"/api/games/{gid}/seats/1", headers={"X-Seat-Key": keys[1]}).json()
    assert view["teammates"] == "ppo:selfplay.pth"  # not the server's path


def test_a_finished_game_is_recorded_and_its_seats_can_replay_it(tmp_path: Path) -> None:
    app = create_app(record=tmp_path)
    with TestClient(app, base_url=LOCAL) as client:
        gid, keys = new_game(client, humans=[0])
        table = table_of(app, gid)
        headers = {"X-Seat-Key": keys[0]}
        for _ in range(500):  # bounded
            if table.over:
                break
            action = table.legal(0)[-1]
            r = client.post(
                f"/api/games/{gid}/seats/0/actions", headers=headers, json={"action": action}
            )
            assert r.status_code == 200
        assert table.over
        (path,) = tmp_path.iterdir()
        assert Replay(path).states[-1] == table.state
        last = len(table.actions)
        r = client.get(f"/api/games/{gid}/seats/0/replay?step={last}&viewer=all", headers=headers)
        assert r.status_code == 200 and r.json()["over"]
        assert client.get(f"/api/games/{gid}/seats/0/replay").status_code == 403  # no key


def test_concurrent_games_do_not_interfere() -> None:
    """Two games with the same seed, played at once from two threads, end exactly like
    one game played alone."""
    config = GameConfig(num_players=3, difficulty="easy")
    alone = Table(config, [0], "convention", seed=5)
    alone.advance()
    while not alone.over:
        alone.act(0, alone.legal(0)[-1])
        alone.advance()
    app = create_app()
    with running_server(app) as base:
        import httpx

        results = {}

        def play(name: str) -> None:
            with httpx.Client(base_url=base, timeout=60) as client:
                body = {"teammates": "convention", "seed": 5, "difficulty": "easy", "humans": [0]}
                data = client.post("/api/games", json=body).json()
                key = data["links"]["0"].split("#key=")[1]
                url = f"/api/games/{data['game']}/seats/0"
                view = client.get(url, headers={"X-Seat-Key": key}).json()
                for _ in range(2000):  # bounded
                    if view["over"]:
                        break
                    action = view["legal"][-1]["action"]
                    r = client.post(
                        url + "/actions", headers={"X-Seat-Key": key}, json={"action": action}
                    )
                    assert r.status_code == 200, r.text
                    view = r.json()
                results[name] = (data["game"], view)

        threads = [threading.Thread(target=play, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    (ga, va), (gb, vb) = results["a"], results["b"]
    assert ga != gb
    for gid in (ga, gb):
        assert table_of(app, gid).actions == alone.actions
    assert va["score"] == vb["score"] == alone.state.score
    assert va["doom"] == vb["doom"] == alone.state.doom


# --- real Chromium ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    yield from chromium_session()


def capture_json(page, bodies: list) -> None:
    """Keep every response the page receives: (url, JSON body or None, content type)."""

    def on_response(response) -> None:
        kind = response.headers.get("content-type", "")
        body = None
        if "application/json" in kind:
            with contextlib.suppress(Exception):  # a body gone with a navigation leaks nothing
                body = response.json()
        bodies.append((response.url, body, kind))

    page.on("response", on_response)


def click_an_action(page, rng: np.random.Generator) -> None:
    """Click a legal action (chosen by ``rng``) and wait for the table to move on."""
    version = page.evaluate("document.body.dataset.version")
    buttons = page.locator("button.action:enabled")
    buttons.nth(int(rng.integers(buttons.count()))).click()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=version, timeout=15_000)


STATIC_PATHS = ("/", "/static/", "/play/", "/replay/")


def check_no_leak(app, bodies: list, rng: np.random.Generator) -> int:
    """Every response the browser received is a static file, a new game's links, a
    seat's view or a step of its finished game's replay; every seat view (and replay
    step seen by a player) is exactly that seat's view of the server-side state at its
    version, with no other hand nor the deck below its top, the same in every twin state
    (another seat's fate or the deck order changed); the group's reading shown with it is
    the teammates' model run on that player's own views of every step, nothing else.
    Returns the views, replay steps and readings checked."""
    checked = unread = checked_replays = read = models = 0
    replays: dict[str, Replay] = {}
    readings: dict[tuple[str, int], list] = {}
    for url, body, kind in bodies:
        path = "/" + url.split("/", 3)[3]
        if body is None and "json" in kind:
            unread += 1  # a poll still in flight when its page closed
            continue
        if body is None:
            assert path.startswith(STATIC_PATHS), url
            continue
        if path == "/api/games":
            assert set(body) == {"game", "links"}, body
            continue
        if path == "/api/teams":  # the lobby's list of team specs
            assert all(isinstance(spec, str) for spec in body), body
            continue
        if path == "/api/replays" or set(body) == {"error"}:
            continue
        if path.split("?")[0].endswith("/replay"):  # served only once the game is over (409)
            table = table_of(app, path.split("/")[3])
            assert table.closed and "step" in body
            checked_replays += check_replay_step(Replay(table.record()), body, rng)
            continue
        assert path.startswith("/api/games/") and "version" in body, (url, body)
        gid = path.split("/")[3]
        if gid not in replays:
            replays[gid] = Replay(table_of(app, gid).record())
        replay = replays[gid]
        s, p = replay.states[body["version"]], body["player"]
        for seat in body["seats"]:
            assert (seat["fates"] is None) == (seat["player"] != p)
        assert set(body["deck"]) == {"size", "top"}
        shown = {k: v for k, v in body.items() if k not in SERVER_ONLY}
        assert shown == {k: v for k, v in seen_by(s, p).items() if k not in SERVER_ONLY}
        assert body["log"] == replay.log[: body["version"]][-LOG_TAIL:]
        for twin in twins(s, p, rng):
            assert seen_by(twin, p) == seen_by(s, p)
        if body["model_previews"]:  # issue 51: the teammates' model reading of each play
            models += check_model_previews(app, gid, body, s, rng)
        # the group's reading is the teammates' model run on this player's own view of
        # every step so far, and nothing else
        if (gid, p) not in readings:
            readings[gid, p] = reference_readings(table_of(app, gid), p)
        want = readings[gid, p][body["version"] - 1] if body["version"] else None
        assert (body["posterior"] is None) == (want is None)
        if want is not None:
            assert np.allclose(body["posterior"], want, atol=1e-4)
            read += 1
        checked += 1
    assert unread <= 2
    return checked + checked_replays + read + models


def check_model_previews(app, gid: str, body: dict, s, rng: np.random.Generator) -> int:
    """The teammates' model readings served with a play decision are those of the
    same game replayed to that version (its advisor fed the same public steps), and
    the same in every twin state of that moment. Returns 1."""
    from shipwreck_apps.play.table import model_readings

    table = table_of(app, gid)
    p, version = body["player"], body["version"]
    fresh = Table.replayed(
        table.config, table.humans, table.teammates, table.seed, table.actions[:version]
    )
    assert fresh.seat_data(p)["model_previews"] == body["model_previews"]
    advisor = fresh.group_model(p)
    for twin in twins(s, p, rng, per_fate=1):
        assert model_readings(advisor, twin, p) == body["model_previews"]
    return 1


def check_replay_step(replay: Replay, body: dict, rng: np.random.Generator) -> int:
    """A replay step answered for a viewer is exactly that viewer's view of that step,
    the same in its twin states; for everybody (``player`` None) it is the omniscient
    picture, served only because the game is over. Returns 1."""
    s = replay.states[body["step"]]
    p = body["player"]
    if p is None:
        assert replay.states[-1].over or body.get("ended") is None
        return 1
    shown = {k: v for k, v in body.items() if k not in (*SERVER_ONLY, "step", "steps", "players")}
    assert shown == {k: v for k, v in seen_by(s, p).items() if k not in SERVER_ONLY}
    for twin in twins(s, p, rng, per_fate=1):
        assert seen_by(twin, p) == seen_by(s, p)
    return 1


def test_a_whole_game_by_clicking_without_a_leak(browser) -> None:
    app = create_app()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with running_server(app) as base:
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        bodies: list = []
        capture_json(page, bodies)
        page.goto(base + "/")
        page.select_option("select[name=difficulty]", "easy")
        page.fill("input[name=teammates]", "convention")
        page.fill("input[name=seed]", "12")
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        link = page.get_attribute("a.seat-link", "href")
        gid = link.split("/")[2]
        page.goto(base + link)  # the seat's secret link
        table_of(app, gid)  # kept for the checks below: a finished game leaves memory
        seat_page = page
        seat_page.wait_for_selector("button.action")
        screenshot_taken = False
        rng = np.random.default_rng(3)
        for _ in range(400):  # bounded: a game has far fewer decisions
            if seat_page.evaluate("document.body.dataset.over") == "1":
                break
            if not screenshot_taken and seat_page.locator(".posterior").count():
                seat_page.screenshot(path=ARTIFACTS / "table.png", full_page=True)
                screenshot_taken = True
            click_an_action(seat_page, rng)
        assert seat_page.evaluate("document.body.dataset.over") == "1"
        assert "Game over" in seat_page.inner_text(".status")
        if not screenshot_taken:  # the group never had to read a fate: keep the end
            seat_page.screenshot(path=ARTIFACTS / "table.png", full_page=True)
            screenshot_taken = True
        seat_page.screenshot(path=ARTIFACTS / "game-over.png", full_page=True)
        seat_page.click("#watch-replay")  # the finished game, step by step, as everybody
        seat_page.wait_for_selector(".seat")
        seat_page.click("#last")
        seat_page.wait_for_function("document.body.dataset.step !== '0'")
        assert "Game over" in seat_page.inner_text(".status")
        seat_page.select_option("#viewer", "1")  # the finished game as player 1 saw it
        seat_page.wait_for_function("document.querySelectorAll('.seat .fate.own').length === 0")
        seat_page.click("#prev")
        seat_page.wait_for_function(
            "document.body.dataset.step !== String(document.getElementById('step').max)"
        )
        assert screenshot_taken
        page.close()
    assert table_of(app, gid).over
    assert check_no_leak(app, bodies, np.random.default_rng(0)) >= 5


def test_two_people_at_one_table_see_only_their_own_seat(browser) -> None:
    app = create_app()
    with running_server(app) as base:
        import httpx

        body = {"players": 3, "humans": [0, 1], "teammates": "bayes", "seed": 4}
        data = httpx.post(base + "/api/games", json=body).json()
        gid = data["game"]
        contexts = [browser.new_context(), browser.new_context()]
        pages, bodies = [], []
        for seat, context in enumerate(contexts):
            page = context.new_page()
            capture_json(page, bodies)
            page.goto(base + data["links"][str(seat)])
            page.wait_for_selector(".seat")
            pages.append(page)
        table = table_of(app, gid)
        rng = np.random.default_rng(4)
        for _ in range(60):  # both people play some turns, each from their own browser
            if table.over:
                break
            page = pages[table.state.decider]
            page.wait_for_selector("button.action:enabled", timeout=10_000)
            click_an_action(page, rng)
        for seat, page in enumerate(pages):
            page.wait_for_function(
                "v => document.body.dataset.version === v", arg=str(len(table.actions))
            )
            mine = page.locator(".seat.mine .seat-name").inner_text()
            assert f"player {seat} (you)" in mine
            assert page.locator(".seat.mine").count() == 1
            other = 1 - seat
            other_row = page.locator(".seat").nth(other)
            assert other_row.locator(".fate.own").count() == 0
            # this seat's link opens nothing else: another seat's view is refused
            key = data["links"][str(seat)].split("#key=")[1]
            status = page.evaluate(
                """([url, key]) => fetch(url, {headers: {"X-Seat-Key": key}}).then(r => r.status)""",
                [f"/api/games/{gid}/seats/{other}", key],
            )
            assert status == 403
        for context in contexts:
            context.close()
    assert len(table.actions) > 10
    assert check_no_leak(app, bodies, np.random.default_rng(1)) > 5


def api_requests(page) -> list:
    """Every request the page sends to the API, as it happens."""
    sent: list = []
    page.on("request", lambda r: sent.append(r.url) if "/api/" in r.url else None)
    return sent


def test_a_refused_link_says_why_and_stops_polling(browser) -> None:
    """Issue 22, finding 10: after an error "Loading the table..." stayed and the page
    kept polling."""
    app = create_app()
    with running_server(app) as base:
        import httpx

        data = httpx.post(base + "/api/games", json={"teammates": "convention", "seed": 1}).json()
        page = browser.new_page()
        sent = api_requests(page)
        page.goto(base + data["links"]["0"].split("#")[0] + "#key=wrong")
        page.wait_for_function("document.body.dataset.stopped === '1'", timeout=10_000)
        assert "does not open seat 0" in page.inner_text("#table")
        assert "Loading" not in page.inner_text("#table")
        count = len(sent)
        page.wait_for_timeout(2500)  # polls come every second
        assert len(sent) == count
        page.close()


def test_an_expired_game_tells_the_page_and_polling_stops(browser) -> None:
    from shipwreck_apps.web.games import Limits

    now = [0.0]
    app = create_app(limits=Limits(idle_timeout=60), clock=lambda: now[0])
    with running_server(app) as base:
        import httpx

        data = httpx.post(base + "/api/games", json={"teammates": "convention", "seed": 1}).json()
        page = browser.new_page()
        sent = api_requests(page)
        page.goto(base + data["links"]["0"])
        page.wait_for_selector("button.action")
        now[0] += 3600
        page.wait_for_function("document.body.dataset.stopped === '1'", timeout=10_000)
        assert "expired" in page.inner_text("#error")
        count = len(sent)
        page.wait_for_timeout(2500)
        assert len(sent) == count
        page.close()


def test_the_page_explains_the_table_and_stops_at_the_end(browser) -> None:
    """Issue 22, finding 10 (browser): phases in words, a label per kind of pass,
    "vote" only in vote mode, the hours each value counts, faded powers with their
    card, a loss that says why; polling stops when the game is over."""
    app = create_app()
    with running_server(app) as base:
        import httpx

        body = {"teammates": "random", "seed": 3, "difficulty": "doomed", "group_decision": "vote"}
        data = httpx.post(base + "/api/games", json=body).json()
        gid = data["game"]
        page = browser.new_page()
        sent = api_requests(page)
        page.goto(base + data["links"]["0"])
        page.wait_for_selector("button.action")
        table = table_of(app, gid)
        seen_texts, statuses, faded = set(), set(), set()
        rng = np.random.default_rng(0)
        for _ in range(400):  # bounded
            if page.evaluate("document.body.dataset.over") == "1":
                break
            seen_texts |= set(page.locator("button.action").all_inner_texts())
            statuses.add(page.inner_text(".status"))
            faded |= set(page.locator(".power").all_inner_texts())
            click_an_action(page, rng)
        assert table.over
        text = page.inner_text("#table")
        assert "1-3 give 1, 4-6 give 2, 7 gives 3" in text
        assert not any("decline the current option" in s or "(or vote)" in s for s in seen_texts)
        assert any(s.startswith("vote ") for s in seen_texts), seen_texts
        assert not any(s.startswith("predict ") for s in seen_texts)
        assert all("phase " not in s for s in statuses) and any("now: " in s for s in statuses)
        assert all(": " in f.split("—")[0] for f in faded), faded  # "The Beast: sorrows — ..."
        status = page.inner_text(".status")
        reason = table.seat_data(0)["end_reason"]
        assert reason in status and " 1 turns" not in status
        page.wait_for_function("document.body.dataset.stopped === '1'")
        count = len(sent)
        page.wait_for_timeout(2500)
        assert len(sent) == count
        page.close()


def test_the_lobby_shows_a_clear_error_for_a_bad_teammate(browser) -> None:
    with running_server(create_app()) as base:
        page = browser.new_page()
        page.goto(base + "/")
        page.fill("input[name=teammates]", "nobody")
        page.click("#create")
        page.wait_for_function("document.getElementById('error').textContent.length > 0")
        assert "not allowed" in page.inner_text("#error")
        page.close()


def test_static_pages_carry_no_game_data(app_client) -> None:
    _, client = app_client
    for path in (
        "/",
        "/static/render.js",
        "/static/table.js",
        "/static/style.css",
        "/static/favicon.svg",
    ):
        r = client.get(path)
        assert r.status_code == 200
    assert json.loads(client.get("/api/replays").text) == []


def test_the_no_leak_check_catches_a_leaky_server(app_client, monkeypatch) -> None:
    """A server whose views also carried the deck order or the other hands, or a play
    preview or a fade warning that peeks at a hidden fate, fails the check used above."""
    import shipwreck_apps.play.table as table_module

    app, client = app_client
    honest = table_module.view_data

    for leak in ("deck", "hands", "preview", "fading"):

        def leaky(view, log=(), posterior=None, faded=None, leak=leak):
            data = honest(view, log, posterior, faded)
            s = next(iter(app.state.games._games.values())).table.state
            hidden = [h for seat, h in enumerate(s.hands) if seat != view.player]
            if leak == "preview":  # issue 51: a preview that peeks at a hidden fate
                data["legal"][0]["preview"] = f"the leader keeps {hidden}"
            elif leak == "fading":
                data["fading"] = [{"slot": 0, "text": f"fades unless {hidden}"}]
            else:
                data["extra"] = s.deck[1:] if leak == "deck" else s.hands
            return data

        monkeypatch.setattr(table_module, "view_data", leaky)
        app.state.games._games.clear()
        gid, keys = new_game(client, humans=[0])
        r = client.get(f"/api/games/{gid}/seats/0", headers={"X-Seat-Key": keys[0]})
        with pytest.raises(AssertionError):
            check_no_leak(
                app, [(str(r.url), r.json(), "application/json")], np.random.default_rng(0)
            )


def test_a_challenge_game_gives_a_person_both_their_seats(app_client) -> None:
    _, client = app_client
    gid, keys = new_game(client, players=2, challenge_mode=True, humans=[0], teammates="convention")
    view = client.get(f"/api/games/{gid}/seats/0", headers={"X-Seat-Key": keys[0]}).json()
    assert [s["seat"] for s in view["seats"] if s["mine"]] == [0, 2]
    assert all(s["fates"] is None for s in view["seats"] if not s["mine"])
    r = client.post("/api/games", json={"players": 3, "challenge_mode": True})
    assert r.status_code == 400 and "challenge_mode" in r.json()["error"]


# --- issue 41, finding 5: a page that teaches the game ----------------------------------


def open_seat(browser, base: str, body: dict, viewport=(1300, 900), clock: bool = False):
    """Create a game over HTTP and open its first person's seat in a new page; returns
    (page, game id, the links). With ``clock``, the page's timers (its polling) run only
    when the test moves its clock."""
    import httpx

    data = httpx.post(base + "/api/games", json=body).json()
    page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
    if clock:
        page.clock.install()
    seat = min(int(s) for s in data["links"])
    page.goto(base + data["links"][str(seat)])
    page.wait_for_selector("button.action")  # the person decides first in these games
    return page, data["game"], data["links"]


ONE_PERSON = {"players": 3, "humans": [0], "teammates": "bayes", "seed": 8}
"""A game whose person (player 0) decides first and again before it ends."""


def test_the_page_teaches_the_game(browser) -> None:
    """Issue 41, finding 5: a "How to play" panel (collapsible, the same words as the
    terminal's rules), the goal, card names in the log (never ids), the group's reading
    says whose fate and from which plays, each turn's plays read literally, the end in
    words and never "Doom 8/7", and a favicon that loads."""
    from test_explain import ID_WORD

    from shipwreck_apps.play.seat_view import RULES_HELP

    app = create_app()
    with running_server(app) as base:
        body = {"players": 3, "teammates": "bayes", "seed": 25, "difficulty": "hard"}
        page, gid, _ = open_seat(browser, base, body)
        table = table_of(app, gid)
        helper = page.locator("#how-to-play")
        assert helper.count() == 1 and not helper.evaluate("d => d.open")  # collapsed
        assert not page.locator("#how-to-play dd").first.is_visible()
        page.click("#how-to-play summary")
        assert page.locator("#how-to-play dd").first.is_visible()
        shown = list(
            zip(
                page.locator("#how-to-play dt").all_inner_texts(),
                page.locator("#how-to-play dd").all_inner_texts(),
                strict=True,
            )
        )
        assert shown == [(t, b) for t, b in RULES_HELP]
        assert "Score 7 before doom reaches 7 (doom starts at 4 on hard)" in page.inner_text(
            ".goal"
        )
        icon = page.get_attribute("link[rel=icon]", "href")
        status, kind = page.evaluate(
            "url => fetch(url).then(r => [r.status, r.headers.get('content-type')])", icon
        )
        assert status == 200 and kind.startswith("image/")
        rng = np.random.default_rng(2)
        readings, posteriors, logs = set(), [], set()
        for _ in range(400):  # bounded
            if page.evaluate("document.body.dataset.over") == "1":
                break
            if page.locator(".reading-text").count():
                readings.add(page.inner_text(".reading-text"))
            if page.locator(".posterior").count():
                posteriors.append(
                    (page.inner_text(".posterior h3"), page.inner_text(".reading-from"))
                )
            logs |= set(page.locator(".log-list li").all_inner_texts())
            click_an_action(page, rng)
        assert table.over
        logs |= set(page.locator(".log-list li").all_inner_texts())
        assert any("refilled with" in text for text in logs)
        assert not any(ID_WORD.search(text) for text in logs), [
            t for t in logs if ID_WORD.search(t)
        ]
        assert readings and all("read literally" in r and "hidden fate is" in r for r in readings)
        assert posteriors
        for heading, source in posteriors:
            assert re.search(r"about player \d's hidden fate", heading), heading
            assert re.search(r"from \d on (The )?[A-Z]", source), source
        status = page.inner_text(".status")
        assert table.state.doom > 7  # this seed ends past the track
        assert "Doom reached 7: the table lost." in status
        assert not re.search(r"\b([89]|1\d)/7", page.inner_text("#table"))
        page.close()


def test_an_error_shows_where_the_eye_is(browser) -> None:
    """Issue 41, finding 5: a refusal is shown in a banner that stays in the window and
    above the action buttons (it was below the fold); the page then shows the table as
    it is now."""
    app = create_app()
    with running_server(app) as base:
        body = {"players": 3, "teammates": "convention", "seed": 2}
        page, _, _ = open_seat(browser, base, body, viewport=(1000, 600), clock=True)

        def refuse(route) -> None:
            if route.request.method == "POST":
                route.fulfill(status=409, json={"error": "it is player 1's decision, not yours"})
            else:
                route.continue_()

        page.route("**/actions", refuse)
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("button.action").first.click()
        page.wait_for_function("document.body.dataset.busy === '0'")  # the refusal is shown
        banner = page.locator("#error")
        assert "player 1's decision" in banner.inner_text()
        box = banner.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 600
        page.locator("button.action").first.scroll_into_view_if_needed()
        box = banner.bounding_box()
        assert box is not None and 0 <= box["y"] < 600  # sticky: still in the window
        near = page.locator(".actions .action-error")
        assert "player 1's decision" in near.inner_text()
        assert near.bounding_box()["y"] < page.locator("button.action").first.bounding_box()["y"]
        page.close()


def test_a_stale_click_is_refused_and_the_page_shows_the_table_again(browser) -> None:
    """Issue 41: an action names the version it was chosen at; a click on a view the
    game has already left (here the same seat played from another tab) is refused, not
    applied to a decision the person never saw, and the page reloads the table."""
    import httpx

    app = create_app()
    with running_server(app) as base:
        page, gid, links = open_seat(browser, base, ONE_PERSON, clock=True)
        table = table_of(app, gid)
        seen = int(page.evaluate("document.body.dataset.version"))
        key = links["0"].split("#key=")[1]
        r = httpx.post(
            f"{base}/api/games/{gid}/seats/0/actions",
            json={"action": table.legal(0)[0], "version": seen},
            headers={"X-Seat-Key": key},
        )
        assert r.status_code == 200, r.text
        moved = table.version
        assert moved > seen and not table.over
        page.locator("button.action").first.click()  # chosen at the old version
        page.wait_for_function("v => document.body.dataset.version === v", arg=str(moved))
        assert table.version == moved  # the stale click changed nothing
        assert "Not played" in page.inner_text("#error")
        page.close()


def test_an_action_lost_on_the_network_is_resent_safely(browser) -> None:
    """Issue 41: the page sends an action again when its answer is lost; the copy that
    arrives second is refused by its version, so the game takes exactly one move."""
    app = create_app()
    with running_server(app) as base:
        page, gid, _ = open_seat(browser, base, ONE_PERSON, clock=True)
        table = table_of(app, gid)
        before = len([e for e in table.log if e["by"] == "person"])
        posts: list[int] = []

        def lose_first_answer(route) -> None:
            if route.request.method != "POST":
                route.continue_()
                return
            posts.append(1)
            if len(posts) == 1:
                route.fetch()  # the server gets it and applies it; the answer is lost
                route.abort("connectionreset")
            else:
                route.continue_()

        page.route("**/actions", lose_first_answer)
        version = page.evaluate("document.body.dataset.version")
        page.locator("button.action").first.click()
        page.clock.run_for(2000)  # the page's wait before sending again
        page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
        assert len(posts) == 2
        assert len([e for e in table.log if e["by"] == "person"]) == before + 1
        assert page.evaluate("document.body.dataset.version") == str(table.version)
        page.close()


def test_the_lobby_offers_the_teams_the_server_offers(browser) -> None:
    """Issue 41, finding 4 (page side): the lobby lists the teams GET /api/teams names
    (only teams that can be created here), not a fixed list."""
    with running_server(create_app(teams=["bayes", "random"])) as base:
        page = browser.new_page()
        page.goto(base + "/")
        page.wait_for_function("document.querySelectorAll('#specs option').length === 2")
        values = page.eval_on_selector_all("#specs option", "os => os.map(o => o.value)")
        assert values == ["bayes", "random"]
        assert page.input_value("input[name=teammates]") == "bayes"
        page.close()
