"""Pictures of the browser table: one mid-game, one at the end.

Starts the web app on a free local port, creates a game with a fixed seed, plays the
person's decisions by clicking in a real Chromium (Debian's ``/usr/bin/chromium``) until
the group has something to conclude about a teammate's hidden fate (the reading panel,
what the turn's plays tell, and the log's notes are on screen), opens "How to play" and
saves the page; then plays on to the end and saves the page again.

Writes ``results/screenshots/page-mid-game.png`` and ``page-game-over.png``; with
``--readme`` the mid-game picture also replaces ``docs/images/table.png`` (the README's).
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
    args = parser.parse_args(argv)
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
        browser.close()
    if args.readme:
        shutil.copyfile(mid, README_PICTURE)
    for path in (mid, end):
        print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
