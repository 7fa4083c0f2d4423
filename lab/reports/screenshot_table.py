"""Pictures of the browser table: one mid-game, one at the end.

Starts the web app on a free local port, creates a game with a fixed seed, plays the
person's decisions by clicking in a real Chromium (Debian's ``/usr/bin/chromium``) until
the group has something to conclude about a teammate's hidden fate (the reading panel,
what the turn's plays tell, and the log's notes are on screen), opens "How to play" and
saves the page; then plays on to the end and saves the page again.

Writes ``results/screenshots/page-mid-game.png`` and ``page-game-over.png``; with
``--readme`` the mid-game picture also replaces ``docs/images/table.png`` (the README's).

Then, on a phone (390x844 at device scale factor 3, touch) and a desktop (1280x800), the
first screen of: the lobby, a first decision, a reveal decision, a group decision with a
card fading this turn, and the end of the game -- ``phone-*.png`` and ``desktop-*.png``
in the same folder; ``--docs`` writes the phone's group decision, at one pixel per CSS
pixel, to ``docs/images/phone-group-fading.png`` (docs/play.md shows it). A game with all those moments is found
first by playing candidate seeds in memory with the same clicks.
Run: ``.venv/bin/python lab/reports/screenshot_table.py``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' server and browser helpers

from web_helpers import launch_chromium, running_server  # noqa: E402

from shipwreck_apps.web.app import create_app  # noqa: E402

OUT = ROOT / "results" / "screenshots"
README_PICTURE = ROOT / "docs" / "images" / "table.png"
GAME = {"players": 3, "difficulty": "hard", "teammates": "bayes", "seed": 25}
"""A 3-player game on hard with the Bayesian teammates, lost past the doom track."""
SIZES = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}
MOMENTS = ("first-decision", "reveal", "group-fading", "end")
DOCS_PICTURE = ROOT / "docs" / "images" / "phone-group-fading.png"


def moment(data: dict, first: bool) -> str | None:
    """Which picture the seat's view ``data`` is for (or ``None``)."""
    if data["over"]:
        return "end"
    if not data["legal"]:
        return None
    if first:
        return "first-decision"
    if data["phase"] == "reveal":
        return "reveal"
    if data["phase"] == "group" and data.get("fading"):
        return "group-fading"
    return None


def find_game(start: int = 0) -> dict:
    """A game whose person meets every moment when always taking the first option."""
    from shipwreck_apps.play.table import Table
    from shipwreck_env.rules.config import GameConfig

    for seed in range(start, start + 300):
        table = Table(GameConfig(num_players=3), [0], "bayes", seed)
        table.advance()
        seen, first = set(), True
        while True:
            data = table.seat_data(0)
            found = moment(data, first)
            if found:
                seen.add(found)
            if table.closed:
                break
            first = False
            table.play(0, data["legal"][0]["action"], data["version"])
        if seen == set(MOMENTS):
            return {"players": 3, "teammates": "bayes", "seed": seed}
    raise SystemExit("no seed in range gives every moment")


def sizes_pictures(base: str, browser, game: dict) -> list[Path]:
    """The phone and desktop pictures of the lobby and of each moment of ``game``."""
    import httpx

    written = []
    for size, context in SIZES.items():
        page = browser.new_context(**context).new_page()
        page.goto(base + "/")
        page.wait_for_selector("#create")
        written.append(OUT / f"{size}-lobby.png")
        page.screenshot(path=written[-1])
        data = httpx.post(base + "/api/games", json=game).json()
        link = data["links"]["0"]
        api = f"{base}/api/games/{data['game']}/seats/0"
        headers = {"X-Seat-Key": link.split("#key=")[1]}
        page.goto(base + link)
        page.wait_for_selector("button.action")
        taken, first = set(), True
        for _ in range(400):  # bounded
            view = httpx.get(api, headers=headers).json()
            page.wait_for_function(
                "v => document.body.dataset.version === String(v)", arg=view["version"]
            )
            found = moment(view, first)
            if found and found not in taken:
                taken.add(found)
                written.append(OUT / f"{size}-{found}.png")
                page.screenshot(path=written[-1])
            if view["over"]:
                break
            first = False
            _click(page, 0)
        page.context.close()
        missing = set(MOMENTS) - taken
        if missing:
            raise SystemExit(f"{size}: no picture of {sorted(missing)}")
    return written


def _click(page, index: int) -> None:
    """Click the ``index``-th enabled action (from the end if negative) and wait for
    the answer."""
    version = page.evaluate("document.body.dataset.version")
    page.locator("button.action:enabled").nth(index).click()
    page.wait_for_function("v => document.body.dataset.version !== v", arg=version)


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", action="store_true", help="also write docs/images/table.png")
    parser.add_argument(
        "--docs", action="store_true", help="also copy two phone pictures to docs/images/"
    )
    args = parser.parse_args(argv)
    game = find_game()
    OUT.mkdir(parents=True, exist_ok=True)
    mid, end = OUT / "page-mid-game.png", OUT / "page-game-over.png"
    with running_server(create_app()) as base, sync_playwright() as p:
        import httpx

        data = httpx.post(base + "/api/games", json=GAME).json()
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + data["links"]["0"])
        page.wait_for_selector("button.action")
        taken = False
        for _ in range(400):  # bounded: a game has far fewer decisions
            if page.evaluate("document.body.dataset.over") == "1":
                break
            later = not page.inner_text(".status").startswith(("Turn 1 ", "Turn 2 "))
            if not taken and later and page.locator(".posterior").count():
                page.click("#how-to-play summary")
                page.screenshot(path=mid, full_page=True)
                page.click("#how-to-play summary")
                taken = True
            _click(page, -1 if taken else 0)
        if not taken:
            raise SystemExit("the game ended before the group had a fate to read")
        page.screenshot(path=end, full_page=True)
        written = sizes_pictures(base, browser, game)
        browser.close()
    if args.readme:
        shutil.copyfile(mid, README_PICTURE)
    if args.docs:  # small: the phone's picture scaled to its CSS size, fewer colours
        from PIL import Image

        with Image.open(OUT / "phone-group-fading.png") as picture:
            small = picture.resize((390, 844), Image.LANCZOS).quantize(colors=64)
            small.save(DOCS_PICTURE, optimize=True)
        print(f"wrote {DOCS_PICTURE.relative_to(ROOT)} ({DOCS_PICTURE.stat().st_size // 1024} KiB)")
    print(f"game with every moment: {game}")
    for path in (mid, end, *written):
        print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
