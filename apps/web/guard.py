"""What every request to the web app must pass before it reaches a game.

:class:`Guard` is an ASGI middleware: it refuses a ``Host`` the server does not serve
(a DNS-rebinding page names its own host), refuses state-changing requests from another
site (an ``Origin`` that is not this server's, or a ``Content-Type`` other than JSON,
which a cross-site form or ``fetch`` without a preflight cannot send), cuts off a body
that does not arrive within its time (408) and marks every answer
``Cache-Control: no-store``. A ``Host`` is parsed strictly (:func:`host_name`): a name or
address and an optional port, nothing else. :func:`read_json` reads a request body
without going past :data:`MAX_BODY` bytes and parses it with limits on nesting and on
integer size. (A client that never finishes its headers is cut off by the server's
protocol: :func:`shipwreck_apps.web.app.server_config`.)

Every refusal is JSON ``{"error": message}`` with a 4xx status, sent before the request
touches any game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Iterable

from starlette.requests import Request
from starlette.responses import JSONResponse

from shipwreck_agents.registry import shown

__all__ = [
    "LOOPBACK",
    "MAX_BODY",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "Guard",
    "HTTPError",
    "described",
    "host_name",
    "read_json",
]

_log = logging.getLogger(__name__)

MAX_BODY = 10_000
"""Bytes a request body may have (a new game's settings take a few hundred)."""
MAX_DEPTH = 4
"""Nesting of arrays and objects a body may have (the API's bodies have 2)."""
MAX_INT_DIGITS = 20
"""Digits a JSON integer may have (seeds are 64-bit)."""
BODY_TIMEOUT = 30.0
"""Seconds a request's body may take to arrive, from the end of its headers."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Host names of this machine."""
_HOST = re.compile(
    r"^(?:\[(?P<v6>[0-9a-f:.]{2,45})\]|(?P<name>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?))"
    r"(?::(?P<port>[0-9]{1,5}))?$"
)
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class HTTPError(Exception):
    """A refused request: status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def host_name(host: str) -> str | None:
    """The name in a ``Host`` header without its port (``[::1]:8000`` -> ``::1``), or
    ``None`` if the header is not a host name or address with an optional port
    (``127.0.0.1:8000@evil.example``, a user part, a path, an unbracketed IPv6 address)."""
    match = _HOST.match(host.strip().lower())
    if match is None:
        return None
    return match["v6"] or match["name"]


class Guard:
    """ASGI middleware: ``Host`` and ``Origin`` checks, JSON-only state changes, and
    ``Cache-Control: no-store`` on every answer.

    Args:
        app: the application behind it.
        allowed_hosts: host names (without port) the server answers to.
        body_timeout: seconds a request's body may take to arrive (then 408).
    """

    def __init__(
        self, app, allowed_hosts: Iterable[str], body_timeout: float = BODY_TIMEOUT
    ) -> None:
        self.app = app
        self.allowed_hosts = {h.lower().strip("[]") for h in allowed_hosts}
        self.body_timeout = body_timeout

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:
            response = JSONResponse(
                {"error": refusal.message},
                status_code=refusal.status,
                headers={"Cache-Control": "no-store"},
            )
            await response(scope, receive, send)
            return

        async def send_no_store(message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k != b"cache-control"]
                if message["status"] == 408:  # the body never came: end the connection
                    kept.append((b"connection", b"close"))
                message = {
                    **message,
                    "headers": [
                        *kept,
                        (b"cache-control", b"no-store"),
                        (b"x-content-type-options", b"nosniff"),
                        (b"x-frame-options", b"DENY"),
                        (b"referrer-policy", b"no-referrer"),
                    ],
                }
            await send(message)

        started = False

        async def send_tracked(message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_no_store(message)

        try:
            await self.app(scope, self.timed(receive), send_tracked)
        except Exception as exc:  # answered here, so the connection stays usable
            _log.exception("request %s %s failed", scope["method"], scope["path"])
            if not started:
                response = JSONResponse(
                    {"error": f"the server failed ({type(exc).__name__}); nothing was changed"},
                    status_code=500,
                )
                await response(scope, receive, send_no_store)

    def timed(self, receive):
        """``receive``, refusing with 408 a body that has not fully arrived
        :attr:`body_timeout` seconds after the request began (a client sending half a body
        and then nothing would otherwise hold its connection and a worker forever)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout
        done = False

        async def receive_in_time():
            nonlocal done
            if done:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.0))
            except asyncio.TimeoutError:
                raise HTTPError(
                    408,
                    f"the request body did not arrive within {self.body_timeout:g} s; "
                    "nothing was changed",
                ) from None
            done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        return receive_in_time

    def refusal(self, method: str, headers: dict[str, str]) -> HTTPError | None:
        """Why a request with ``method`` and ``headers`` is refused, or ``None``."""
        host = headers.get("host", "")
        if host_name(host) not in self.allowed_hosts:
            return HTTPError(
                421,
                f"host {host[:100]!r} is not served here; allowed: {sorted(self.allowed_hosts)}",
            )
        if method in _SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in (f"http://{host}", f"https://{host}"):
            return HTTPError(403, f"requests from origin {origin!r} are refused; only this page's")
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return HTTPError(403, "cross-site requests are refused")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return HTTPError(415, f"content type {kind!r} is refused; allowed: application/json")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return HTTPError(413, f"request body of {length} bytes; at most {MAX_BODY} allowed")
        return None


async def read_json(request: Request) -> dict:
    """The request's body as a JSON object, read up to :data:`MAX_BODY` bytes.

    Raises:
        HTTPError: 413 a longer body (reading stops there), 400 not a JSON object, nested
            deeper than :data:`MAX_DEPTH`, an integer longer than :data:`MAX_INT_DIGITS`
            digits, or NaN / Infinity / a number too large for a float; 408 the body did
            not arrive in time (:meth:`Guard.timed`).
    """
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPError(413, f"request body over {MAX_BODY} bytes")
    return parse_json(bytes(body))


def described(value: object) -> str:
    """A JSON value named for a refusal (``the text 'x'``, ``a list``), without echoing
    it whole."""
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, (int, float)):
        text = str(value)
        return f"the number {text if len(text) <= 30 else text[:30] + '...'}"
    if isinstance(value, str):
        return f"the text {shown(value)}"
    return "a list" if isinstance(value, list) else "an object"


def parse_json(body: bytes) -> dict:
    """``body`` as a JSON object under the limits of :func:`read_json`."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPError(
            400, f"request body is not valid JSON: byte {exc.start} is not UTF-8 text"
        ) from None
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise HTTPError(400, f"request body nests {depth} deep; at most {MAX_DEPTH} allowed")
    try:
        data = json.loads(
            text or "null", parse_int=_int, parse_float=_float, parse_constant=_constant
        )
    except json.JSONDecodeError as exc:
        raise HTTPError(
            400, f"request body is not valid JSON: {exc.msg.lower()} at character {exc.pos}"
        ) from None
    if not isinstance(data, dict):
        raise HTTPError(400, "request body must be a JSON object")
    return data


def _depth(text: str) -> int:
    """Deepest nesting of ``[`` and ``{`` outside strings (counted before parsing, so a
    deep body never reaches the recursive parser)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise HTTPError(400, f"a number of {len(text)} digits; at most {MAX_INT_DIGITS} allowed")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise HTTPError(400, f"the number {text[:30]} is too large; numbers must be finite")
    return value


def _constant(text: str) -> None:
    raise HTTPError(400, f"{text} is not allowed in a request body")
