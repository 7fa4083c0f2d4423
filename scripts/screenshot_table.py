"""Regenerate the README's picture of the browser table (docs/images/table.png).

Starts the web app on a free local port, creates a game with a fixed seed, plays the
person's decisions by clicking the first legal action in a real Chromium (Debian's
``/usr/bin/chromium``) until the group has something to conclude about a teammate's
hidden fate, and saves the page. Run: ``.venv/bin/python scripts/screenshot_table.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' server and browser helpers

from web_helpers import launch_chromium, running_server  # noqa: E402

from shipwreck_apps.web.app import create_app  # noqa: E402

OUT = ROOT / "docs" / "images" / "table.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    with running_server(create_app()) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1200, "height": 820})
        page.goto(base + "/")
        page.fill("input[name=seed]", "12")
        page.click("#create")
        page.wait_for_selector("a.seat-link")
        page.goto(base + page.get_attribute("a.seat-link", "href"))
        page.wait_for_selector("button.action")
        for _ in range(200):
            version = page.evaluate("document.body.dataset.version")
            turn = page.inner_text(".status")
            later = "Turn 1 " not in turn and "Turn 2 " not in turn
            if later and page.locator(".posterior").count() and page.locator(".power").count():
                break
            if page.evaluate("document.body.dataset.over") == "1":
                break
            page.click("button.action:enabled >> nth=-1")
            page.wait_for_function("v => document.body.dataset.version !== v", arg=version)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=OUT, full_page=True)
        browser.close()
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
