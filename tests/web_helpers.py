"""Shared by the web and replay tests: a real server on a free local port, a real
Chromium through Playwright, and twin states for the no-leak checks."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from shipwreck_env.rules.state import State

LOCAL = "http://127.0.0.1:8000"
"""Base URL for Starlette's TestClient: a host the app serves (its default, testserver, is
refused like any host the server does not serve)."""
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""How the tests launch Debian's chromium (Playwright's own download does not work here)."""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(app) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 and a free port in a thread; yields the
    base URL and stops the server afterwards."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def chromium_session() -> Iterator:
    """Playwright's Chromium (Debian's), open until the generator is closed: the body of
    the tests' module-wide ``browser`` fixtures."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


def launch_chromium(playwright):
    """Debian's chromium, headless, through Playwright."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: run lab/tools/setup.sh (it installs chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)


def twins(s: State, player: int, rng: np.random.Generator, per_fate: int = 2) -> list[State]:
    """States that ``player`` cannot tell from ``s``: another seat's held fate swapped
    with a copy in the bag (keeping every public fact: ``test_leaks.swapped``), or the
    deck below its top card in another order."""
    from twins import swapped

    out = []
    P = s.config.num_players
    for seat, hand in enumerate(s.hands):
        if seat % P == player:
            continue
        for index in range(len(hand)):
            options = [t for w in range(1, 8) if (t := swapped(s, seat, index, w)) is not None]
            rng.shuffle(options)
            out += options[:per_fate]
    if len(s.deck) > 2:
        t = s.copy()
        rest = t.deck[1:]
        while rest == t.deck[1:]:
            rest = [rest[i] for i in rng.permutation(len(rest))]
        t.deck = t.deck[:1] + rest
        out.append(t)
    return out
