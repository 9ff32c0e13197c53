"""The web layer against a hostile client (issue 34, items 1, 2, 6 and 7), probed as the audit
probed it: against the real server on 127.0.0.1, bodies too large before and after logging in
(announced and streamed), path ids of 5,000 digits, JSON nested 1,000 deep or holding an
integer of 5,000 digits, a hidden form field of "²", the headers of every answer (a 4xx, a
500), the allowed hosts, the ``__Host-`` cookies, a client that goes away mid-request."""

from __future__ import annotations

import logging
import re
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from .conftest import Server, a_suggested_citation, csrf_of, login


def _serve(database, workspace, tmp_path, name="server", **options):
    return Server(database["url"], workspace, tmp_path / f"{name}.log", options=options)


def _raw(port: int, request: bytes, *, close_after: bool = False, timeout: float = 10.0) -> bytes:
    """Send ``request`` as it is; the answer's bytes (none when ``close_after``: the client
    goes away)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(request)
        if close_after:
            return b""
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < _length(answer):
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def _length(answer: bytes) -> int:
    found = re.search(rb"(?im)^content-length:\s*(\d+)", answer.split(b"\r\n\r\n", 1)[0])
    return int(found.group(1)) if found else 0


def _headers_of(answer: bytes) -> tuple[int, dict[str, str]]:
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    return int(head[0].split()[1]), {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}


def _guarded(headers) -> None:
    """The security headers every answer carries."""
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def test_bodies_beyond_the_limits_are_refused_before_they_are_read(server, workspace, corpus):
    port = server.port
    # announced: 200 MB to the login form, no byte of it sent; the answer comes at once
    started = time.monotonic()
    answer = _raw(port, b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded"
                        b"\r\nContent-Length: 200000000\r\n\r\n")
    status, headers = _headers_of(answer)
    assert status == 413 and time.monotonic() - started < 10
    _guarded(headers)
    # streamed without a length: counted as it arrives, refused past 16 KiB before logging in
    chunk = b"a=" + b"x" * 8190
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(4))
    answer = _raw(port, b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded"
                        b"\r\nTransfer-Encoding: chunked\r\n\r\n" + body + b"0\r\n\r\n")
    assert _headers_of(answer)[0] == 413
    assert b"larger than 16384 bytes (before logging in)" in answer
    with httpx.Client(base_url=server.base) as client:
        assert client.post("/login", content=b"x" * 20_000).status_code == 413
        # a made-up session cookie does not buy the larger limit of the login form
        made_up = client.post("/login", content=b"x" * 20_000, headers={"Cookie": "pateval_assess=made-up"})
        assert made_up.status_code == 413
        patent_key, qid, citation = a_suggested_citation(corpus)
        login(client, server.base, "bob", workspace["accounts"]["bob"])
        token = csrf_of(client, server.base, patent_key)
        topic_id = next(t["id"] for t in client.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
        url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
        large = client.put(url, content=b"[" + b"0," * (1 << 20) + b"0]", headers={"X-CSRF-Token": token})
        assert large.status_code == 413 and large.json() == {"error": "the request body is larger than 1048576 bytes"}
        _guarded(large.headers)

        def chunks():
            for _ in range(40):
                yield b" " * 65536

        streamed = client.put(url, content=chunks(), headers={"X-CSRF-Token": token})
        assert streamed.status_code == 413
        # within the limit the same request goes through
        saved = client.put(url, json={"xpaths": [], "version": 0}, headers={"X-CSRF-Token": token})
        assert saved.status_code == 200


def test_no_input_gets_a_500(server, workspace, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    digits = "9" * 5000
    with httpx.Client(base_url=server.base) as client:
        login(client, server.base, "bob", workspace["accounts"]["bob"])
        token = csrf_of(client, server.base, patent_key)
        topic_id = next(t["id"] for t in client.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
        url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
        headers = {"X-CSRF-Token": token}
        for path in (f"/api/topics/{digits}/judgements", f"/api/topics/{digits}/citations/x/selection"):
            long_id = client.get(path)
            assert long_id.status_code == 400, path
            assert long_id.json() == {"error": "topic id must be an integer from 0 to 9223372036854775807"}
        assert client.post(f"/topic/{digits}/claims", data={"csrf": token, "claims": "1",
                                                            "version": "0"}).status_code == 400
        assert client.post(f"/topic/{digits}/delete", data={"csrf": token, "version": "0"}).status_code == 400
        assert client.get(f"/source/{patent_key}?topic=²").status_code == 400
        assert client.get(f"/source/{patent_key}?citation={digits}").status_code == 400
        # JSON nested 1,000 (and 100,000) deep, integers of 5,000 digits: a clear 400
        for depth in (1000, 100_000):
            deep = client.put(url, content=b'{"xpaths": ' + b"[" * depth + b"]" * depth + b"}", headers=headers)
            assert deep.status_code == 400 and deep.json() == {"error": "the request body nests deeper than 32 levels"}
        huge = client.put(url, content=b'{"xpaths": [], "version": ' + digits.encode() + b"}", headers=headers)
        assert huge.status_code == 400
        assert huge.json() == {"error": "a number in the request body has more than 20 digits"}
        assert client.put(url, content=b"\xff\xfe", headers=headers).status_code == 400
        # the hidden topic field of a form: "²" is a digit to str.isdigit, not to int()
        refused = client.post(f"/source/{patent_key}/decision", data={"csrf": token, "version": "0", "topic": "²",
                                                                     "status": "bogus"})
        assert refused.status_code == 400
        refused = client.post(f"/source/{patent_key}/topics", data={"csrf": token, "topic": "9" * 30, "qid": "",
                                                                   "claims": ""})
        assert refused.status_code == 400
        # a value echoed in a message is cut short
        echoed = client.post("/api/assessors/bob", json={"action": "x" * 500_000}, headers=headers)
        assert echoed.status_code in (400, 403) and len(echoed.content) < 1000
        # a path and query string beyond 8 KiB
        assert client.get("/source/" + "x" * 9000).status_code == 414
    log = server.log.name
    server.kill(signal.SIGTERM)
    text = Path(log).read_text(encoding="utf-8")
    assert "Traceback" not in text and "unexpected error" not in text, text


def test_every_answer_carries_the_headers_and_pages_are_not_stored(server, workspace):
    with httpx.Client(base_url=server.base) as client:
        page = client.get("/login")
        _guarded(page.headers)
        assert page.headers["cache-control"] == "no-store"
        for missing in (client.get("/no-such-page"), client.get("/api/sources")):
            assert missing.status_code in (401, 404)
            _guarded(missing.headers)
            assert missing.headers["cache-control"] == "no-store"
        static = client.get("/static/" + next(p for p in _static_files()))
        assert static.status_code == 200 and "no-store" not in static.headers.get("cache-control", "")
        _guarded(static.headers)
        # a Host the tool does not answer to (DNS rebinding): refused, headers on
        other = client.get("/login", headers={"Host": "attacker.example"})
        assert other.status_code == 400 and "not among the allowed hosts" in other.text
        _guarded(other.headers)
        assert client.get("/login", headers={"Host": "localhost:8765"}).status_code == 200


def _static_files():
    from importlib.resources import files

    return sorted(p.name for p in files("pateval.assess").joinpath("static").iterdir() if p.is_file())


def test_allowed_hosts_and_host_prefixed_cookies(database, workspace, tmp_path):
    served = _serve(database, workspace, tmp_path, secure_cookies=True, allowed_hosts=["assess.example.org"])
    try:
        with httpx.Client(base_url=served.base, headers={"Host": "assess.example.org"}) as client:
            assert client.get("/login", headers={"Host": "127.0.0.1"}).status_code == 400
            page = client.get("/login")
            assert page.status_code == 200
            cookie = page.headers["set-cookie"]
            assert cookie.startswith("__Host-pateval_assess_login=")
            parts = [p.strip().lower() for p in cookie.split(";")]
            assert "secure" in parts and "path=/" in parts and not any(p.startswith("domain") for p in parts)
            token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
            done = client.post("/login", data={"csrf": token, "name": "bob", "password": workspace["accounts"]["bob"]},
                               headers={"Cookie": f"__Host-pateval_assess_login={token}"})
            assert done.status_code == 303 and done.headers["set-cookie"].startswith("__Host-pateval_assess=")
            session = done.headers["set-cookie"].split(";")[0].split("=", 1)[1]
            client.cookies.clear()
            assert client.get("/api/sources", headers={"Cookie": f"__Host-pateval_assess={session}"}).status_code == 200
            # the same cookie without the prefix (one a subdomain or plain HTTP could have set) counts for nothing
            assert client.get("/api/sources", headers={"Cookie": f"pateval_assess={session}"}).status_code == 401
    finally:
        served.kill(signal.SIGTERM)


def test_a_client_that_goes_away_is_one_log_line(server, workspace):
    for _ in range(3):  # the login form's body announced, partly sent, then the client is gone
        _raw(server.port, b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded"
                          b"\r\nContent-Length: 1000\r\n\r\ncsrf=abc&name=", close_after=True)
    time.sleep(1.0)
    with httpx.Client(base_url=server.base) as client:
        assert client.get("/login").status_code == 200  # still serving
    log = server.log.name
    server.kill(signal.SIGTERM)
    text = Path(log).read_text(encoding="utf-8")
    assert "Traceback" not in text, text
    lines = text.splitlines()
    # the server's own start-up lines ("assess: ...": serving, a test's scrypt-cost warning) aside
    assert [line for line in lines if not line.startswith("assess: ")] == ["client went away during POST /login"] * 3, \
        text


def test_a_fault_is_logged_with_its_traceback_once_and_answered_with_the_headers(caplog):
    """A real fault: 500 with the headers (the guard is outside Starlette's error handling),
    its traceback in the log once, the repeats one line a minute at most."""
    import asyncio

    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from pateval.assess import app as assess_app
    from pateval.assess.limits import FaultLog

    def broken(request):
        raise ZeroDivisionError("a bug")

    def fine(request):
        return PlainTextResponse("ok")

    application = assess_app._App(routes=[Route("/broken", broken), Route("/fine", fine)],
                                  exception_handlers={Exception: assess_app._server_error})
    application.guard = {"cookies": (), "prefix": False}
    faults = FaultLog()
    original, assess_app.limits.FAULTS = assess_app.limits.FAULTS, faults
    try:
        with caplog.at_level(logging.ERROR, logger="pateval.assess"):
            for _ in range(20):
                status, headers, body = asyncio.run(_get(application, "/broken"))
                assert status == 500 and body == b"internal error (logged on the server)"
                _guarded(headers)
            assert asyncio.run(_get(application, "/fine"))[0] == 200
    finally:
        assess_app.limits.FAULTS = original
    records = [r for r in caplog.records if r.name == "pateval.assess"]
    assert len(records) == 1 and records[0].exc_info is not None  # the repeats within the minute: quiet


async def _get(application, path: str) -> tuple[int, dict[str, str], bytes]:
    """One GET through the ASGI application (no server): status, headers, body."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    await application(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    return start["status"], headers, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_the_fault_log_counts_repeats_in_one_line_a_minute(caplog, monkeypatch):
    from pateval.assess import limits

    clock = [1000.0]
    monkeypatch.setattr(limits.time, "monotonic", lambda: clock[0])
    faults = limits.FaultLog(interval=60)

    def fail():
        try:
            raise KeyError("k")
        except KeyError as error:
            faults.log(error, "GET /x")

    with caplog.at_level(logging.ERROR, logger="pateval.assess"):
        for at in (1000, 1010, 1020, 1070, 1080):
            clock[0] = at
            fail()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and caplog.records[0].exc_info is not None and caplog.records[1].exc_info is None
    assert lines[1] == ("unexpected error on GET /x: KeyError: 'k' (4 times so far; its traceback was logged "
                        "the first time)")


@pytest.mark.parametrize(("given", "limit", "expected"), [
    ("x" * 10, 80, "x" * 10), ("x" * 100, 10, "x" * 10 + "... (90 more characters)")])
def test_shown_values_are_cut_short(given, limit, expected):
    from pateval.assess.limits import shown

    assert shown(given, limit) == expected


def test_odd_values_in_every_field_of_every_route_are_4xx(server, workspace, corpus):
    """Each JSON field, form field, path and query parameter the tool reads, given values of
    the wrong type, shape or script: never a 500, nothing in the log."""
    patent_key, qid, citation = a_suggested_citation(corpus)
    answers = []
    with httpx.Client(base_url=server.base) as client:
        login(client, server.base, "alice", workspace["accounts"]["alice"])
        token = csrf_of(client, server.base, patent_key)
        headers = {"X-CSRF-Token": token}
        topic_id = next(t["id"] for t in client.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
        url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
        values = [None, 1.5, "x", [], {}, [1], ["a"] * 3, True, -1, "²", "\x00", "x" * 5000, {"a": 1}, [[]]]
        for key in ("xpaths", "version", "owner"):
            for value in values:
                body = {"xpaths": [], "version": 0, key: value}
                answers.append((url, body, client.put(url, json=body, headers=headers)))
                answers.append((url, body, client.post(url.replace("/selection", "/undo"), json=body,
                                                       headers=headers)))
        for value in values:
            for body in ({"action": value, "password": value}, {"action": "reset-password", "password": value}):
                answers.append(("assessors", body, client.post("/api/assessors/bob", json=body, headers=headers)))
        for body in ([], "x", 1, None):
            answers.append((url, body, client.put(url, json=body, headers=headers)))
        for odd in ("%00", "²", "x" * 3000, "..", "a%2Fb", "%ff", "<script>"):
            for path in (f"/source/{odd}", f"/api/sources/{odd}", f"/api/documents/{odd}",
                         f"/api/topics/{topic_id}/citations/{odd}/selection", f"/source/{patent_key}?owner={odd}",
                         f"/source/{patent_key}?doc={odd}", f"{url}?owner={odd}",
                         f"/source/{patent_key}?citation={odd}"):
                answers.append((path, None, client.get(path)))
            for path, form in ((f"/source/{patent_key}/topics", {"qid": odd, "claims": odd, "topic": odd}),
                               (f"/source/{patent_key}/decision", {"version": odd, "status": odd, "reason": odd,
                                                                  "note": odd, "topic": odd, "back": odd}),
                               (f"/topic/{topic_id}/claims", {"version": odd, "claims": odd}),
                               (f"/topic/{topic_id}/delete", {"version": odd, "confirm": odd}),
                               ("/password", {"old": odd, "new": odd, "repeat": odd})):
                answers.append((path, form, client.post(path, data={"csrf": token, **form})))
        answers.append(("multipart", None, client.post(f"/topic/{topic_id}/claims", content=b"--x\r\n",
                                                       headers={"Content-Type": "multipart/form-data; boundary=x"})))
        answers.append(("form", None, client.post(f"/topic/{topic_id}/claims",
                                                  content=b"a=%ff%fe&csrf=" + token.encode(),
                                                  headers={"Content-Type": "application/x-www-form-urlencoded"})))
    faults = [(what, body, answer.status_code) for what, body, answer in answers if answer.status_code >= 500]
    assert not faults
    log = server.log.name
    server.kill(signal.SIGTERM)
    assert "Traceback" not in Path(log).read_text(encoding="utf-8")
