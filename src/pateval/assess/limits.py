"""The bounds of the web layer: what a client may send, and what every answer carries.

Two ASGI middlewares and the checks the handlers use, so that no input, however large or
odd, costs memory beyond a bound or answers 500:

:class:`Guard` (outermost, around Starlette's own error handling)
    Every answer -- a page, a 4xx, a 500 -- gets the security headers (``no-store`` on
    everything but the static files); under ``--secure-cookies`` the cookies carry the
    ``__Host-`` prefix (renamed on the way out and back in, so the handlers see one name);
    an exception Starlette has answered already is not raised further (the server would log
    its traceback a second time), and a client that goes away is one log line.
:class:`Bounds` (inside Starlette's error handling)
    The ``Host`` header among the allowed hosts (400 otherwise); the request target at most
    :data:`MAX_TARGET` bytes (414); the body at most ``max_body`` bytes, or ``max_login_body``
    on ``/login`` and from a client without a session cookie: a ``Content-Length`` beyond it
    is answered 413 before any byte of the body is read, a streamed body is counted as it
    arrives and refused once it passes the bound.

:func:`parse_json` (depth and integer size bounded), :func:`id_text` (an id of a form or
a query) and :func:`shown` (an echoed value cut short) are for the handlers; :class:`FaultLog`
logs a fault's traceback once, not once per request of a flood.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Iterable

from starlette.convertors import Convertor
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from .service import AssessError, check_id

__all__ = ["Bounds", "FaultLog", "Guard", "IdConvertor", "MAX_BODY", "MAX_LOGIN_BODY", "id_text", "parse_json",
           "shown"]

log = logging.getLogger("pateval.assess")

#: Bytes of a request body once logged in: a selection of ten thousand passages is about 500 KB.
MAX_BODY = 1 << 20
#: Bytes of a request body before logging in (the login form is a few hundred bytes).
MAX_LOGIN_BODY = 16 << 10
#: Bytes of a request's path and query string.
MAX_TARGET = 8 << 10
#: Nesting of a JSON body (the API's bodies nest two deep).
MAX_JSON_DEPTH = 32
#: Digits of a JSON integer (a 64-bit id has at most 19).
MAX_JSON_DIGITS = 20
#: Characters of a value echoed in a message.
SHOWN = 80

SECURITY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", b"default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
    (b"referrer-policy", b"no-referrer"),
)


def shown(value: object, limit: int = SHOWN) -> str:
    """``value`` as text for a message, cut to about ``limit`` characters with the count of
    those left out (an error never echoes megabytes back).

    >>> shown("x" * 100, 10)
    'xxxxxxxxxx... (90 more characters)'
    """
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more characters)"


def shorten(message: str, limit: int = 400) -> str:
    """A whole message at most about ``limit`` characters: its start and its end, what lies
    between them counted (a value echoed inside it is what grows)."""
    if len(message) <= limit:
        return message
    head, tail = message[: limit * 2 // 3], message[-(limit // 3):]
    return f"{head}... ({len(message) - len(head) - len(tail)} characters left out) ...{tail}"


def id_text(name: str, value: str) -> int:
    """An id given as text (a form field, a query parameter): ASCII digits only, as a
    database column holds it; 400 otherwise (never a ValueError)."""
    if not (value.isascii() and value.isdigit()):
        raise AssessError(400, f"{name} must be a number, not {shown(value, 40)!r}")
    return check_id(name, int(value) if len(value) <= 19 else -1)


class IdConvertor(Convertor[int]):
    """The ``{name:id}`` path parameter: digits, of any length; more than 19 of them stand for
    a number beyond every id, which the handler refuses as out of range (400), instead of
    int() of 5,000 digits failing (500)."""

    regex = "[0-9]+"

    def convert(self, value: str) -> int:
        return int(value) if len(value) <= 19 else 2 ** 63

    def to_string(self, value: int) -> str:
        return str(int(value))


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise AssessError(400, f"a number in the request body has more than {MAX_JSON_DIGITS} digits")
    return int(text)


def parse_json(body: bytes) -> object:
    """The JSON value of a request body; 400 for what is not JSON, nested deeper than
    :data:`MAX_JSON_DEPTH` or holding an integer of more than :data:`MAX_JSON_DIGITS` digits."""
    try:
        value = json.loads(body, parse_int=_bounded_int)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise AssessError(400, "the request body is not JSON") from None
    except RecursionError:
        raise AssessError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels") from None
    pending, depth = [value], 0
    while pending:  # level by level: no recursion
        depth += 1
        if depth > MAX_JSON_DEPTH:
            raise AssessError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        pending = [child for item in pending if isinstance(item, (dict, list))
                   for child in (item.values() if isinstance(item, dict) else item)
                   if isinstance(child, (dict, list))]
    return value


class FaultLog:
    """A fault's traceback logged the first time it happens (by exception type and the line
    it was raised at), later occurrences as one line each with their count, at most one such
    line a minute per fault: a flood of requests hitting one bug does not flood the log."""

    def __init__(self, interval: float = 60.0, faults: int = 1000) -> None:
        self.interval, self.faults = interval, faults
        self._seen: dict[tuple, list[float]] = {}  # fault -> [count, time of the last line]
        self._lock = threading.Lock()

    def log(self, error: BaseException, what: str) -> None:
        frame = error.__traceback__
        while frame is not None and frame.tb_next is not None:
            frame = frame.tb_next
        where = (frame.tb_frame.f_code.co_filename, frame.tb_lineno) if frame is not None else ("", 0)
        key = (type(error).__name__, *where)
        now = time.monotonic()
        with self._lock:
            seen = self._seen.get(key)
            if seen is None:
                if len(self._seen) >= self.faults:
                    self._seen.pop(next(iter(self._seen)))
                self._seen[key] = [1, now]
            else:
                seen[0] += 1
                quiet = now - seen[1] < self.interval
                if not quiet:
                    seen[1] = now
        if seen is None:
            log.error("unexpected error on %s", what, exc_info=(type(error), error, error.__traceback__))
        elif not quiet:
            log.error("unexpected error on %s: %s: %s (%d times so far; its traceback was logged the first time)",
                      what, type(error).__name__, shorten(str(error), 200), seen[0])


async def _answer(send, path: str, status: int, message: str) -> None:
    if path.startswith("/api/"):
        body, kind = json.dumps({"error": message}).encode(), b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The outermost middleware (see the module's description)."""

    def __init__(self, app, *, cookies: Iterable[str] = (), prefix: bool = False) -> None:
        self.app = app
        self.prefix = prefix
        # the handlers' cookie names, the prefixed names the browser holds
        self.names = {name.encode(): b"__Host-" + name.encode() for name in cookies} if prefix else {}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        static = path.startswith("/static/")
        if self.names:
            scope = {**scope, "headers": [(k, self._cookies_in(v) if k == b"cookie" else v)
                                          for k, v in scope["headers"]]}
        started = False

        async def guarded(message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [(k, self._cookie_out(v) if k.lower() == b"set-cookie" else v)
                           for k, v in message.get("headers", ())]
                have = {k.lower() for k, _v in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                if not static and b"cache-control" not in have:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, guarded)
        except ClientDisconnect:
            log.warning("client went away during %s %s", scope.get("method"), shown(path))
        except Exception as error:  # noqa: BLE001 - the last stop: the server shall not log it again
            if not started:  # (Starlette's handler answered it, and logged it, unless it failed itself)
                FAULTS.log(error, f"{scope.get('method')} {shown(path)}")
                await _answer(guarded, path, 500, "internal error (logged on the server)")

    def _cookies_in(self, header: bytes) -> bytes:
        """The Cookie header with the prefixed cookies under the handlers' names, and those
        sent without the prefix left out (a cookie a subdomain or plain HTTP could set)."""
        kept = []
        for part in header.split(b";"):
            name, _, value = part.strip().partition(b"=")
            if name in self.names:
                continue
            plain = next((n for n, prefixed in self.names.items() if prefixed == name), None)
            kept.append(part.strip() if plain is None else plain + b"=" + value)
        return b"; ".join(kept)

    def _cookie_out(self, header: bytes) -> bytes:
        name, _, rest = header.partition(b"=")
        return self.names[name] + b"=" + rest if name in self.names else header


#: The faults of the whole process (the app's error handler and the guard log into it).
FAULTS = FaultLog()


def _host_pattern(host: str) -> re.Pattern:
    host = host.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.startswith("*."):
        return re.compile(r"(?:[^.]+\.)+" + re.escape(host[2:]))
    return re.compile(re.escape(host))


def host_of(header: str) -> str:
    """The host name of a ``Host`` header (its port and an IPv6 address's brackets removed).

    >>> host_of("Example.org:8765"), host_of("[::1]:8765"), host_of("::1")
    ('example.org', '::1', '::1')
    """
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        header = header.partition(":")[0]
    return header.rstrip(".")


class Bounds:
    """The request's host, target and body within bounds (see the module's description)."""

    def __init__(self, app, *, max_body: int = MAX_BODY, max_login_body: int = MAX_LOGIN_BODY,
                 allowed_hosts: Iterable[str] | None = None, session_cookie: str = "") -> None:
        self.app = app
        self.max_body, self.max_login_body = max_body, max_login_body
        self.hosts = None if allowed_hosts is None else [_host_pattern(h) for h in allowed_hosts]
        self.session_cookie = session_cookie.encode() + b"="

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        headers = scope["headers"]
        if self.hosts is not None:
            host = host_of(next((v for k, v in headers if k == b"host"), b"").decode("latin-1"))
            if not any(p.fullmatch(host) for p in self.hosts):
                await _answer(send, path, 400, f"the host {shown(host, 60)!r} is not among the allowed hosts")
                return
        if len(scope.get("raw_path") or path.encode()) + len(scope.get("query_string", b"")) > MAX_TARGET:
            await _answer(send, path, 414, f"the request's path and query are longer than {MAX_TARGET} bytes")
            return
        cookies = b";".join(v for k, v in headers if k == b"cookie")
        logged_in = path != "/login" and any(part.strip().startswith(self.session_cookie)
                                             for part in cookies.split(b";"))
        limit = self.max_body if logged_in else self.max_login_body
        lengths = [v for k, v in headers if k == b"content-length"]
        if lengths:
            text = lengths[0].decode("latin-1").strip()
            if not text.isdigit() or len(text) > 18:
                await _answer(send, path, 400, "the Content-Length header is not a number")
                return
            if int(text) > limit:
                await _answer(send, path, 413, _too_large(limit, logged_in))
                return
        received = 0

        async def counted():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, _too_large(limit, logged_in))
            return message

        await self.app(scope, counted, send)


def _too_large(limit: int, logged_in: bool) -> str:
    return (f"the request body is larger than {limit} bytes" if logged_in else
            f"the request body is larger than {limit} bytes (before logging in)")
