"""The web application: server-rendered pages (Jinja2) over Starlette, a little plain
JavaScript, and the JSON API the pages use.

Pages
    ``/login``, ``/`` (topic sources with status and progress, and the pools), ``/source/{patent}``
    (the Figure 2 screen: topic, citations with Prev / Next, passages), ``/pool/{topic id}``
    (a pool topic's queue and document: grade and passages), ``/agreement``,
    ``/audit``, ``/password`` (one's own).
JSON API (all need a logged-in session; writes need the ``X-CSRF-Token`` header)
    ``GET /api/sources``, ``GET /api/sources/{patent}`` (topics, citations with parsed
    indications and suggestions, decision), ``GET /api/documents/{ucid}`` (passages),
    ``GET|PUT /api/topics/{id}/citations/{ucid}/selection`` (``{"xpaths": [...],
    "version": v, "owner": name}``; 409 when stale, with the selection saved meanwhile as
    ``current``), ``POST .../undo`` (back one save further each time),
    ``GET /api/topics/{id}/judgements`` (every saved selection of a topic, all assessors),
    ``GET /api/topics/{id}/queue`` (a pool topic's queue; a pool judgement's PUT carries
    ``"grade"``: :mod:`pateval.assess.pools`),
    ``GET /api/agreement``, ``GET /api/audit``; administrators: ``GET /api/assessors``,
    ``POST /api/assessors/{name}`` (``{"action": ..., "password": ...}``).

Sessions live in the database (:func:`pateval.assess.service.start_session`): the cookie
holds a random token, the pages' CSRF token is derived from it.

Errors are answered with their status and a one-line message (JSON for the API, a page
otherwise); an unreachable database with 503 and one log line; an unexpected error is
logged on the server and answered 500 without details. What a client may send (body
sizes, ids, JSON, hosts) and the headers of every answer: :mod:`pateval.assess.limits`.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from pathlib import Path

from markupsafe import Markup, escape
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from . import db, limits, pools, service
from .agreement import agreement
from .corpus import AssessCorpus
from .indications import REJECTION_REASONS
from .service import AssessError

__all__ = ["create_app"]

_HERE = Path(__file__).parent
log = logging.getLogger("pateval.assess")


COOKIE = "pateval_assess"
LOGIN_COOKIE = "pateval_assess_login"  # the CSRF token of the login form, before a session exists


class LoginThrottle:
    """Failed logins per client address in a sliding window: at ``limit`` failures within
    ``window`` seconds the address is refused until the oldest of them leaves the window.
    An attempt counts as a failure from before its password is checked (:meth:`attempt`) until
    it succeeds (:meth:`forgive`), so that a burst of parallel attempts checks at most ``limit``.
    At most ``addresses`` addresses are remembered (the quietest forgotten first)."""

    def __init__(self, limit: int = 30, window: float = 900.0, addresses: int = 10_000) -> None:
        self.limit, self.window, self.addresses = limit, window, addresses
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def wait(self, address: str) -> float:
        """Seconds until ``address`` may try again (0: now)."""
        with self._lock:
            recent = self._recent(address)
            return recent[0] + self.window - time.monotonic() if len(recent) >= self.limit else 0.0

    def fail(self, address: str) -> int:
        """Count a failure; returns the failures of the address within the window."""
        with self._lock:
            return len(self._add(address, time.monotonic()))

    def attempt(self, address: str) -> tuple[float, float, int]:
        """Count an attempt as a failure before its password is checked: ``(wait, stamp,
        count)``, where ``wait`` > 0 when the address may not try now (nothing counted),
        else ``stamp`` identifies the attempt for :meth:`forgive` and ``count`` is the
        address's failures within the window, this one included."""
        with self._lock:
            recent = self._recent(address)
            if len(recent) >= self.limit:
                return recent[0] + self.window - time.monotonic(), 0.0, len(recent)
            stamp = time.monotonic()
            return 0.0, stamp, len(self._add(address, stamp))

    def forgive(self, address: str, stamp: float) -> None:
        """Take back the attempt ``stamp`` of :meth:`attempt`: its password was right."""
        with self._lock:
            recent = self._failures.get(address, [])
            if stamp in recent:
                recent.remove(stamp)

    def _add(self, address: str, stamp: float) -> list[float]:
        recent = self._recent(address)
        recent.append(stamp)
        self._failures.pop(address, None)
        self._failures[address] = recent  # the most recent last: the first ones are forgotten first
        while len(self._failures) > self.addresses:
            del self._failures[next(iter(self._failures))]
        return recent

    def _recent(self, address: str) -> list[float]:
        horizon = time.monotonic() - self.window
        recent = [t for t in self._failures.get(address, ()) if t > horizon]
        if recent:
            self._failures[address] = recent
        else:
            self._failures.pop(address, None)
        return recent


def _from_proxy(request: Request) -> bool:
    return request.client is not None and request.client.host in request.app.state.trusted_proxies


def _address(request: Request) -> str:
    """The client's address: the last X-Forwarded-For entry when a trusted proxy sent it."""
    forwarded = request.headers.get("x-forwarded-for") if _from_proxy(request) else None
    if forwarded and forwarded.split(",")[-1].strip():
        return forwarded.split(",")[-1].strip()
    return request.client.host if request.client is not None else "unknown"


def _secure(request: Request) -> bool:
    """Whether cookies get ``Secure``: always with --secure-cookies, else when the request
    came over HTTPS (directly, or through a trusted proxy saying so in X-Forwarded-Proto)."""
    return request.app.state.secure_cookies or request.url.scheme == "https" or (
        _from_proxy(request) and request.headers.get("x-forwarded-proto", "").strip().lower() == "https")


def _set_cookie(request: Request, response: Response, name: str, value: str, max_age: int | None) -> None:
    response.set_cookie(name, value, max_age=max_age, path="/", httponly=True, samesite="strict",
                        secure=_secure(request))


def _user(request: Request) -> dict | None:
    if not hasattr(request.state, "user"):
        state = request.app.state
        request.state.user = service.session_user(state.engine, request.cookies.get(COOKIE), idle=state.session_idle,
                                                  maximum=state.session_max)
    return request.state.user


def _csrf(request: Request) -> str:
    """The CSRF token of the pages: derived from the session token (a copy of the database,
    which holds only the token's hash, cannot give it), else the login form's own cookie."""
    if token := request.cookies.get(COOKIE):
        return hmac.new(token.encode("utf-8"), b"csrf", hashlib.sha256).hexdigest()
    login = request.cookies.get(LOGIN_COOKIE) or getattr(request.state, "new_login_cookie", None)
    if not login:
        login = request.state.new_login_cookie = secrets.token_urlsafe(32)
    return login


def _check_csrf(request: Request, supplied: object) -> None:
    has_cookie = request.cookies.get(COOKIE) or request.cookies.get(LOGIN_COOKIE)
    if not has_cookie or not supplied or not secrets.compare_digest(_csrf(request), str(supplied)):
        raise AssessError(403, "missing or wrong CSRF token; reload the page")


async def _require_user(request: Request) -> dict:
    user = await run_in_threadpool(_user, request)
    if user is None:
        raise AssessError(401, "log in first")
    return user


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _page(request: Request, name: str, context: dict, status: int = 200) -> Response:
    context = {**context, "csrf": _csrf(request), "user": context.get("user")}
    response = request.app.state.templates.TemplateResponse(request, name, context, status_code=status)
    if getattr(request.state, "new_login_cookie", None):
        _set_cookie(request, response, LOGIN_COOKIE, request.state.new_login_cookie, None)
    return response


async def _user_form(request: Request):
    """The user and the form of a page's write, once the session and the form's CSRF field are checked."""
    user = await _require_user(request)
    form = await request.form()
    _check_csrf(request, form.get("csrf"))
    return user, form


async def _json_body(request: Request) -> dict:
    """The JSON object of an API write, once its ``X-CSRF-Token`` header is checked."""
    _check_csrf(request, request.headers.get("x-csrf-token"))
    body = limits.parse_json(await request.body())  # (its size bounded by limits.Bounds)
    if not isinstance(body, dict):
        raise AssessError(400, "the request body must be a JSON object")
    return body


# ---- pages -------------------------------------------------------------------------------

async def login_page(request: Request) -> Response:
    return _page(request, "login.html", {"error": None})


async def _throttled(request: Request, check):
    """``check(address)`` (in a thread) once the client's address may try a password: the
    attempt is counted as a failure before it runs and forgiven when it gives a result (not
    None); an address at its limit is refused (429) without a check."""
    state = request.app.state
    address = _address(request)
    wait, stamp, count = state.login_throttle.attempt(address)
    if wait > 0:
        raise AssessError(429, f"too many failed logins from {address}; try again in {int(wait // 60) + 1} minutes")
    try:
        result = await run_in_threadpool(check, address)
    except Exception:  # no password was found wrong (a new password refused, a database fault)
        state.login_throttle.forgive(address, stamp)
        raise
    if result is not None:
        state.login_throttle.forgive(address, stamp)
    elif count == state.login_throttle.limit:
        await run_in_threadpool(service.note_blocked_address, state.engine, address, count)
    return result


async def login(request: Request) -> Response:
    form = await request.form()
    _check_csrf(request, form.get("csrf"))
    state = request.app.state
    try:
        user = await _throttled(request, lambda address: service.authenticate(
            state.engine, str(form.get("name", "")), str(form.get("password", "")),
            max_failures=state.max_failed_logins, address=address))
    except AssessError as error:  # the address is refused for a while
        return _page(request, "login.html", {"error": error.message}, status=error.status)
    if user is None:
        return _page(request, "login.html", {"error": service.LOGIN_REFUSED}, status=401)
    token = await run_in_threadpool(lambda: service.start_session(state.engine, user["id"], idle=state.session_idle,
                                                                  maximum=state.session_max))
    response = RedirectResponse("/", status_code=303)
    _set_cookie(request, response, COOKIE, token, int(state.session_max))
    return response


async def logout(request: Request) -> Response:
    form = await request.form()
    _check_csrf(request, form.get("csrf"))
    await run_in_threadpool(service.end_session, request.app.state.engine, request.cookies.get(COOKIE))
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request))
    return response


async def password_page(request: Request) -> Response:
    user = await _require_user(request)
    return _page(request, "password.html", {"user": user, "message": None})


async def change_password(request: Request) -> Response:
    user, form = await _user_form(request)
    new = str(form.get("new", ""))
    if new != str(form.get("repeat", "")):
        raise AssessError(400, "the new password and its repetition differ")
    service.check_new_password(new, user["name"])
    state = request.app.state

    def check(address: str) -> bool | None:
        """True when changed, None when the current password is wrong (a failure to count)."""
        try:
            service.change_password(state.engine, user, str(form.get("old", "")), new,
                                    keep_session=request.cookies.get(COOKIE), max_failures=state.max_failed_logins,
                                    address=address)
        except AssessError as error:
            if error.status != 403:
                raise
            wrong.append(error)
            return None
        return True

    wrong: list[AssessError] = []
    await _throttled(request, check)
    if wrong:
        raise wrong[0]
    return _page(request, "password.html", {"user": user, "message": "password changed; your other sessions ended"})


def _sources_listing(app) -> list[dict]:
    engine, corpus = app.state.engine, app.state.corpus
    corpus.preload()
    out = []
    for number, patent_key in enumerate(corpus.patent_keys, start=1):
        source = corpus.source(patent_key)
        if source is None:
            continue
        citations = corpus.citations(patent_key)
        flags = sorted({f for c in citations if c.in_corpus for f in c.parsed.flags})
        all_flagged = all(c.parsed.flags for c in citations if c.in_corpus)
        state = service.source_state(engine, patent_key)
        out.append({"number": number, "patent_key": patent_key, "ucid": source.ucid, "title": source.title,
                    "citations": len(citations), "in_corpus": sum(c.in_corpus for c in citations),
                    "status": state["status"], "reason": state["reason"],
                    "flags": flags if all_flagged else [],
                    "progress": service.progress(engine, corpus, patent_key)})
    return out


async def index(request: Request) -> Response:
    user = await _require_user(request)
    rows = await run_in_threadpool(_sources_listing, request.app)
    pooled = await run_in_threadpool(pools.pool_listing, request.app.state.engine, user["name"])
    return _page(request, "index.html", {"user": user, "sources": rows, "reasons": REJECTION_REASONS,
                                         "pools": pooled})


def _source_view(app, patent_key: str, user: dict, topic_id: int | None, position: int | None, owner: str | None):
    engine, corpus = app.state.engine, app.state.corpus
    source = corpus.source(patent_key)
    if source is None or patent_key not in corpus.patent_keys:
        raise AssessError(404, f"no topic source {patent_key}")
    service.ensure_topics(engine, corpus, patent_key)
    topics = service.topics_of(engine, patent_key)
    current = next((t for t in topics if t["id"] == topic_id), topics[0] if topics else None)
    citations = corpus.citations(patent_key)
    walk = service.topic_citations(corpus, current) if current is not None else list(citations)
    citation = next((c for c in walk if c.position == position), None) if position is not None else \
        (walk[0] if walk else None)
    if citation is None and position is not None:
        raise AssessError(404, f"citation {position} of {patent_key} is not cited against the claims of "
                               f"{current['qid'] if current else 'a topic'}")
    owner = _editable_owner(user, owner)
    document = corpus.document(citation.cited_ucid) if citation is not None and citation.in_corpus else None
    suggestion, missing = (document.suggest(citation.parsed) if document is not None and citation is not None
                           else ([], []))
    saved = (service.selection(engine, current["id"], citation.cited_ucid, owner)
             if current is not None and citation is not None else {"version": 0, "xpaths": []})
    others = ({who: xpaths for (cited, who), xpaths in service.selections_of_topic(engine, current["id"]).items()
               if cited == citation.cited_ucid and who != db.ADJUDICATED}
              if current is not None and citation is not None and owner == db.ADJUDICATED else {})
    # Prev / Next walk the topic's citations, and the counter counts them (not the report's).
    index_in_walk = next((i for i, c in enumerate(walk) if citation is not None and c.position == citation.position),
                         None)
    previous = walk[index_in_walk - 1].position if index_in_walk not in (None, 0) else None
    following = walk[index_in_walk + 1].position if index_in_walk is not None and index_in_walk + 1 < len(walk) \
        else None
    # Progress per topic: citations relevant to its claims (in the corpus) that this owner saved.
    for t in topics:
        wanted = {c.cited_ucid for c in citations if c.in_corpus and set(c.relevant_claims) & set(t["claim_numbers"])}
        saved_here = {cited for cited, who in service.selections_of_topic(engine, t["id"]) if who == owner}
        t["progress"] = (len(wanted & saved_here), len(wanted))
    return {"source": source, "topics": topics, "topic": current, "citations": citations, "walk": walk,
            "citation": citation, "document": document, "suggestion": suggestion, "missing": missing,
            "saved": saved, "owner": owner, "others": others, "previous": previous, "next": following,
            "walk_index": index_in_walk, "state": service.source_state(engine, patent_key),
            "reasons": REJECTION_REASONS, "progress": service.progress(engine, corpus, patent_key),
            "terms": topic_terms(text for number, text, _d in source.claims
                                 if current is not None and number in current["claim_numbers"])}


def _editable_owner(user: dict, owner: str | None) -> str:
    """Whose judgements a page edits: the user's own, or (an administrator) the adjudicated ones."""
    owner = owner or user["name"]
    if owner != user["name"] and owner != db.ADJUDICATED:
        raise AssessError(403, f"{user['name']} cannot open the judgements of {owner} for editing")
    if owner == db.ADJUDICATED and not user["is_admin"]:
        raise AssessError(403, "only an administrator adjudicates")
    return owner


def _pool_view(app, topic_id: int, user: dict, docno: str | None, owner: str | None) -> dict:
    """What the pool page shows: the topic's queue as ``owner`` works through it
    (:func:`pateval.assess.pools.queue`), and its document ``docno`` (default: the next to
    judge; none when the queue is done)."""
    engine, corpus = app.state.engine, app.state.corpus
    current = service.topic(engine, topic_id)
    owner = _editable_owner(user, owner)
    queue = pools.queue(engine, current, owner)
    documents = queue["documents"]
    docno = docno or queue["next"]  # (none left: the page says the queue is done)
    position = next((i for i, d in enumerate(documents) if d["docno"] == docno), None)
    if docno is not None and position is None:
        raise AssessError(404, f"{limits.shown(docno, 64)} is not in the queue of {current['qid']}")
    entry = documents[position] if position is not None else None
    document = corpus.document(docno) if docno is not None and len(docno) <= 64 else None
    saved = service.selection(engine, topic_id, docno, owner) if docno is not None else {"version": 0, "xpaths": []}
    others: dict = {}
    others_grades: dict = {}
    if entry is not None and owner == db.ADJUDICATED:
        others = {who: xpaths for (cited, who), xpaths in service.selections_of_topic(engine, topic_id).items()
                  if cited == docno and who != db.ADJUDICATED}
        others_grades = {who: g for who, g in entry["grades"].items() if who != db.ADJUDICATED}
    again = f"?owner={db.ADJUDICATED}" if owner == db.ADJUDICATED else ""
    return {"topic": current, "pool": queue["pool"], "queue": queue, "pool_doc": entry, "document": document,
            "saved": saved, "owner": owner, "others": others, "others_grades": others_grades,
            "position": position + 1 if position is not None else None,
            "previous": documents[position - 1]["docno"] if position else None,
            # Next: the next document to judge, chosen after this one is saved (an adaptive order
            # takes it from the judgements, this one's included)
            "next": f"/pool/{topic_id}{again}" if entry is not None else None,
            "disputed": sum(d["disputed"] for d in documents), "suggestion": [], "missing": [],
            "terms": frozenset(), "is_adjudicating": owner == db.ADJUDICATED}


_WORD = re.compile(r"\w+", re.UNICODE)
# Words too common in claims to help the eye (English, German, French).
_COMMON = frozenset(["the", "and", "for", "with", "that", "which", "said", "from", "into", "wherein", "comprising",
                     "having", "being", "such", "each", "other", "than", "when", "where", "their", "claim", "claims",
                     "according", "means", "least", "first", "second", "third", "more", "less", "also", "der", "die",
                     "das", "und", "mit", "eine", "einer", "eines", "einem", "nach", "dass", "durch", "sowie", "wobei",
                     "anspruch", "ansprüche", "les", "des", "une", "pour", "dans", "avec", "selon", "dont", "sont",
                     "revendication", "revendications"])


def topic_terms(texts) -> frozenset[str]:
    """The words of the topic's claims worth marking in the cited passages (4+ letters,
    not among the commonest claim words)."""
    return frozenset(w for text in texts for w in (m.lower() for m in _WORD.findall(text))
                     if len(w) >= 4 and w not in _COMMON and not w.isdigit())


def highlight(text: str, terms) -> Markup:
    """``text`` escaped, with the words in ``terms`` wrapped in ``<mark>``."""
    out, position = [], 0
    for match in _WORD.finditer(text):
        if match.group(0).lower() in terms:
            out.append(escape(text[position:match.start()]))
            out.append(Markup("<mark>") + escape(match.group(0)) + Markup("</mark>"))
            position = match.end()
    out.append(escape(text[position:]))
    return Markup("").join(out)


def _int_param(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    return limits.id_text(name, value) if value else None


async def _form_error(request: Request, user: dict, patent_key: str, topic_id: int | None, form_name: str,
                      values: dict, error: AssessError) -> Response:
    """The source page again, its form ``form_name`` holding what was typed and the error
    (a page of its own only when there is no such source, or no session)."""
    if error.status in (401, 404):
        raise error
    view = await run_in_threadpool(_source_view, request.app, patent_key, user, topic_id, None, None)
    return _page(request, "assess.html", {"user": user, **view, "is_adjudicating": False, "form_error": {
        "form": form_name, "message": limits.shorten(error.message), "values": values}}, status=error.status)


def _form_topic(form) -> int | None:
    """The topic a form was sent from (its hidden ``topic`` field), to show it again."""
    value = str(form.get("topic") or "")
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 19 else None


async def source_page(request: Request) -> Response:
    user = await _require_user(request)
    position = _int_param(request, "citation")
    doc = request.query_params.get("doc")
    if position is None and doc:
        position = next((c.position for c in request.app.state.corpus.citations(request.path_params["patent_key"])
                         if c.cited_ucid == doc), None)
    view = await run_in_threadpool(_source_view, request.app, request.path_params["patent_key"], user,
                                   _int_param(request, "topic"), position, request.query_params.get("owner"))
    return _page(request, "assess.html", {"user": user, **view, "is_adjudicating": view["owner"] == db.ADJUDICATED})


async def pool_page(request: Request) -> Response:
    """``/pool/{topic_id}``: a pool topic's document ``doc`` (default: the next to judge),
    as ``owner`` (the user, or an administrator adjudicating) judges it."""
    user = await _require_user(request)
    doc = request.query_params.get("doc") or None
    view = await run_in_threadpool(_pool_view, request.app, int(request.path_params["topic_id"]), user, doc,
                                   request.query_params.get("owner"))
    return _page(request, "pool.html", {"user": user, **view})


async def add_topic(request: Request) -> Response:
    user, form = await _user_form(request)
    patent_key = request.path_params["patent_key"]
    values = {"qid": str(form.get("qid", "")).strip(), "claims": str(form.get("claims", ""))}
    try:
        topic_id = await run_in_threadpool(service.add_topic, request.app.state.engine, request.app.state.corpus,
                                           patent_key, values["qid"], values["claims"], user)
    except AssessError as error:
        return await _form_error(request, user, patent_key, _form_topic(form), "add-topic", values, error)
    return RedirectResponse(f"/source/{patent_key}?topic={topic_id}", status_code=303)


def _form_version(form) -> int:
    """The version a page's form was made from (the compare-and-set of every write)."""
    try:
        return service.check_id("version", int(form.get("version", "")))
    except ValueError:
        raise AssessError(400, "version must be a number") from None


async def topic_claims(request: Request) -> Response:
    user, form = await _user_form(request)
    topic_id = int(request.path_params["topic_id"])
    version = _form_version(form)
    current = await run_in_threadpool(service.topic, request.app.state.engine, topic_id)
    claims = str(form.get("claims", ""))
    try:
        await run_in_threadpool(lambda: service.set_topic_claims(
            request.app.state.engine, request.app.state.corpus, topic_id, claims, user, base_version=version))
    except AssessError as error:
        if current["pool_id"] is not None:  # (no source page to show the form again on)
            raise
        return await _form_error(request, user, current["patent_key"], topic_id, "claims", {"claims": claims}, error)
    return RedirectResponse(f"/source/{current['patent_key']}?topic={topic_id}", status_code=303)


async def topic_delete(request: Request) -> Response:
    user, form = await _user_form(request)
    topic_id = int(request.path_params["topic_id"])
    version = _form_version(form)
    engine = request.app.state.engine
    if form.get("confirm") != "yes":  # first the confirmation page (no JavaScript needed)
        removal = await run_in_threadpool(lambda: service.topic_removal(engine, topic_id, user, base_version=version))
        return _page(request, "delete_topic.html", {"user": user, **removal})
    current = await run_in_threadpool(service.topic, engine, topic_id)
    await run_in_threadpool(lambda: service.delete_topic(engine, topic_id, user, base_version=version))
    return RedirectResponse(f"/source/{current['patent_key']}", status_code=303)


async def decide(request: Request) -> Response:
    user, form = await _user_form(request)
    patent_key = request.path_params["patent_key"]
    version = _form_version(form)
    values = {"status": str(form.get("status", "")), "reason": str(form.get("reason") or ""),
              "note": str(form.get("note") or "")}
    try:
        await run_in_threadpool(service.decide_source, request.app.state.engine, request.app.state.corpus,
                                patent_key, status=values["status"], reason=values["reason"] or None,
                                note=values["note"] or None, base_version=version, actor=user)
    except AssessError as error:
        return await _form_error(request, user, patent_key, _form_topic(form), "decision", values, error)
    back = str(form.get("back") or f"/source/{patent_key}")
    # Only a path of this site: "//host" or "/\\host" would leave it.
    local = back.startswith("/") and not back.startswith(("//", "/\\"))
    return RedirectResponse(back if local else "/", status_code=303)


async def agreement_page(request: Request) -> Response:
    user = await _require_user(request)
    result = await run_in_threadpool(agreement, request.app.state.engine, request.app.state.corpus)
    return _page(request, "agreement.html", {"user": user, "result": result, "topic_ids": await run_in_threadpool(
        service.topic_ids, request.app.state.engine)})


async def audit_page(request: Request) -> Response:
    user = await _require_user(request)
    rows = await run_in_threadpool(lambda: service.audit_log(request.app.state.engine, limit=500,
                                                             accounts=bool(user["is_admin"])))
    return _page(request, "audit.html", {"user": user, "events": rows})


# ---- JSON API ----------------------------------------------------------------------------

async def api_sources(request: Request) -> Response:
    await _require_user(request)
    return JSONResponse(await run_in_threadpool(_sources_listing, request.app))


def _citation_json(corpus, citation) -> dict:
    document = corpus.document(citation.cited_ucid) if citation.in_corpus else None
    suggestion, missing = document.suggest(citation.parsed) if document is not None else ([], [])
    return {"position": citation.position, "cited_ucid": citation.cited_ucid, "citing_ucid": citation.citing_ucid,
            "category": citation.category, "relevant_claims": list(citation.relevant_claims),
            "indication": citation.indication, "in_corpus": citation.in_corpus,
            "segments": [{"kind": s.kind, "text": s.text, "numbers": list(s.numbers)}
                         for s in citation.parsed.segments],
            "flags": list(citation.parsed.flags), "suggested_xpaths": suggestion, "not_found": missing}


async def api_source(request: Request) -> Response:
    await _require_user(request)
    app = request.app
    patent_key = request.path_params["patent_key"]

    def work():
        source = app.state.corpus.source(patent_key)
        if source is None or patent_key not in app.state.corpus.patent_keys:
            raise AssessError(404, f"no topic source {patent_key}")
        service.ensure_topics(app.state.engine, app.state.corpus, patent_key)
        return {"patent_key": patent_key, "ucid": source.ucid, "title": source.title,
                "claims": [{"number": n, "depends_on": list(d)} for n, _t, d in source.claims],
                "topics": [{"id": t["id"], "qid": t["qid"], "claims": t["claim_numbers"], "version": t["version"]}
                           for t in service.topics_of(app.state.engine, patent_key)],
                "citations": [_citation_json(app.state.corpus, c) for c in app.state.corpus.citations(patent_key)],
                "decision": service.source_state(app.state.engine, patent_key)}

    return JSONResponse(await run_in_threadpool(work), headers={"Cache-Control": "no-store"})


async def api_document(request: Request) -> Response:
    await _require_user(request)
    ucid = request.path_params["ucid"]
    document = await run_in_threadpool(request.app.state.corpus.document, ucid)
    if document is None:
        raise AssessError(404, f"{ucid} is not in the corpus")
    return JSONResponse({"ucid": document.ucid, "title": document.title, "lang": document.lang,
                         "passages": [{"xpath": p.xpath, "section": p.section, "label": p.label, "text": p.text,
                                       "is_heading": p.is_heading} for p in document.passages]})


async def api_selection(request: Request) -> Response:
    user = await _require_user(request)
    if request.method == "PUT":
        return await _written(request, user, lambda body, **keys: service.save_selection(
            xpaths=body.get("xpaths"), grade=body.get("grade"), **keys))
    engine, topic_id = request.app.state.engine, request.path_params["topic_id"]
    owner = request.query_params.get("owner") or user["name"]
    await run_in_threadpool(service.topic, engine, topic_id)
    selection = await run_in_threadpool(service.selection, engine, topic_id, request.path_params["ucid"], owner)
    return JSONResponse(selection, headers={"Cache-Control": "no-store"})


async def _written(request: Request, user: dict, write) -> Response:
    """A save or undo of the selection the path names, of the body's ``owner`` (else the
    user's own) at the body's ``version``: ``write(body, **keys)`` with the keyword
    arguments of :func:`service.save_selection`. The answer is the new version and the
    selection; a 409 carries the selection as the other page saved it (``current``: its
    passages, version, who and when), so that its loser can keep either; other errors pass."""
    body = await _json_body(request)
    engine, corpus = request.app.state.engine, request.app.state.corpus
    topic_id, cited = request.path_params["topic_id"], request.path_params["ucid"]
    owner = body.get("owner") or user["name"]
    if not isinstance(owner, str):
        raise AssessError(400, "owner must be the name of an account (a string)")
    try:
        version = await run_in_threadpool(lambda: write(body, engine=engine, corpus=corpus, topic_id=topic_id,
                                                        cited_ucid=cited, owner=owner,
                                                        base_version=body.get("version"), actor=user))
    except AssessError as error:
        if error.status != 409:
            raise
        current = await run_in_threadpool(service.selection, engine, topic_id, cited, owner)
        return JSONResponse({"error": error.message, "current": current}, status_code=409)
    return JSONResponse({"version": version, **(await run_in_threadpool(service.selection, engine, topic_id, cited,
                                                                        owner))})


async def api_topic_judgements(request: Request) -> Response:
    await _require_user(request)
    engine = request.app.state.engine
    topic_id = int(request.path_params["topic_id"])

    def work():
        current = service.topic(engine, topic_id)
        rows = [{"cited_ucid": cited, "owner": owner, "xpaths": xpaths}
                for (cited, owner), xpaths in sorted(service.selections_of_topic(engine, topic_id).items())]
        return {"id": topic_id, "qid": current["qid"], "patent_key": current["patent_key"],
                "claims": current["claim_numbers"], "judgements": rows}

    return JSONResponse(await run_in_threadpool(work), headers={"Cache-Control": "no-store"})


async def api_queue(request: Request) -> Response:
    """``GET /api/topics/{id}/queue?owner=``: a pool topic's queue (:func:`pateval.assess.pools.queue`)."""
    user = await _require_user(request)
    engine = request.app.state.engine

    def work():
        current = service.topic(engine, int(request.path_params["topic_id"]))
        owner = _editable_owner(user, request.query_params.get("owner"))
        queue = pools.queue(engine, current, owner)
        pool = {k: queue["pool"][k] for k in ("name", "description", "runs", "order_name", "sampled", "max_grade")}
        return {"id": current["id"], "qid": current["qid"], "owner": owner, "pool": pool,
                **{k: queue[k] for k in ("documents", "next", "settled", "judged")}}

    return JSONResponse(await run_in_threadpool(work), headers={"Cache-Control": "no-store"})


async def api_undo(request: Request) -> Response:
    return await _written(request, await _require_user(request),
                          lambda body, **keys: service.undo_selection(**keys))


async def api_assessors(request: Request) -> Response:
    user = await _require_user(request)
    if not user["is_admin"]:
        raise AssessError(403, "only an administrator manages accounts")
    return JSONResponse(await run_in_threadpool(service.assessors_list, request.app.state.engine),
                        headers={"Cache-Control": "no-store"})


async def api_assessor(request: Request) -> Response:
    """``POST /api/assessors/{name}`` with ``{"action": "disable" | "enable" | "remove" |
    "unlock" | "reset-password", "password": ...}`` (an administrator)."""
    user = await _require_user(request)
    body = await _json_body(request)
    name = request.path_params["name"]
    await run_in_threadpool(lambda: service.manage_assessor(request.app.state.engine, name, str(body.get("action")),
                                                            actor=user, password=body.get("password")))
    listed = await run_in_threadpool(service.assessors_list, request.app.state.engine)
    return JSONResponse(next(a for a in listed if a["name"] == name))


async def api_agreement(request: Request) -> Response:
    await _require_user(request)
    return JSONResponse(await run_in_threadpool(agreement, request.app.state.engine, request.app.state.corpus))


async def api_audit(request: Request) -> Response:
    """The audit log; its account events (names, lock-outs, addresses) for administrators only."""
    user = await _require_user(request)
    return JSONResponse(await run_in_threadpool(lambda: service.audit_log(request.app.state.engine, limit=500,
                                                                          accounts=bool(user["is_admin"]))))


# ---- errors ------------------------------------------------------------------------------

async def _assess_error(request: Request, error: AssessError) -> Response:
    if _is_api(request):
        return _plain_error(request, error.message, error.status)
    if error.status == 401:
        return RedirectResponse("/login", status_code=303)
    user = await run_in_threadpool(_user, request)
    return _page(request, "error.html", {"message": limits.shorten(error.message), "status": error.status,
                                         "user": user}, status=error.status)


def _plain_error(request: Request, message: str, status: int, headers: dict | None = None) -> Response:
    message = limits.shorten(message)  # a value echoed in it is cut short
    if _is_api(request):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    return PlainTextResponse(message, status_code=status, headers=headers)


async def _http_error(request: Request, error: HTTPException) -> Response:
    message = {404: "no such page", 405: "method not allowed"}.get(error.status_code, str(error.detail))
    return _plain_error(request, message, error.status_code)


async def _database_error(request: Request, error: DBAPIError) -> Response:
    """The database cannot be reached (PostgreSQL stopped, the network gone): 503 and one
    log line; the pool reconnects once it is back."""
    if problem := db.storage_problem(error):  # read-only, a full disk: waiting will not cure it
        log.error("database unusable on %s %s: %s", request.method, request.url.path, problem)
        return _plain_error(request, f"the database {problem.split(':')[0]}; an administrator must fix it", 503)
    if not (isinstance(error, (OperationalError, InterfaceError)) or error.connection_invalidated):
        return await _server_error(request, error)
    log.error("database unavailable on %s %s: %s", request.method, request.url.path,
              db.shown_url(str(error.orig or error).splitlines()[0]))
    return _plain_error(request, "the database is unavailable; try again in a moment", 503, {"Retry-After": "10"})


async def _server_error(request: Request, error: Exception) -> Response:
    """A real fault: its traceback logged once (:class:`limits.FaultLog`), 500 without details."""
    limits.FAULTS.log(error, f"{request.method} {limits.shown(request.url.path)}")
    return _plain_error(request, "internal error (logged on the server)", 500)


async def _client_gone(request: Request, error: ClientDisconnect) -> Response:
    """The client went away before its request was read: one log line, no traceback."""
    log.warning("client went away during %s %s", request.method, limits.shown(request.url.path))
    return Response(status_code=400)


class _App(Starlette):
    """Starlette with :class:`limits.Guard` around its own error handling, so that every
    answer, a 500 included, carries the security headers."""

    guard: dict = {}

    def build_middleware_stack(self):
        return limits.Guard(super().build_middleware_stack(), **self.guard)


def create_app(engine, corpus: AssessCorpus, *, secure_cookies: bool = False, trusted_proxies=(),
               session_idle: float = 2 * 3600, session_max: float = 12 * 3600, max_failed_logins: int = 10,
               address_failures: int = 30, allowed_hosts=None, max_body: int = limits.MAX_BODY,
               max_login_body: int = limits.MAX_LOGIN_BODY) -> Starlette:
    """The application over an open database (:func:`pateval.assess.db.open_database`)
    and corpus (:class:`pateval.assess.corpus.AssessCorpus`).

    Sessions end after ``session_idle`` seconds without a request or ``session_max``
    seconds after the login; an account is locked out after ``max_failed_logins`` wrong
    passwords in a row, an address refused for 15 minutes after ``address_failures``
    failed logins. Cookies are ``Secure`` with ``secure_cookies`` or over HTTPS; the
    X-Forwarded-Proto and X-Forwarded-For headers count only from ``trusted_proxies``.

    Bodies are refused beyond ``max_body`` bytes, and beyond ``max_login_body`` before
    logging in; with ``allowed_hosts`` (names, ``*.example.org``) a request naming another
    host is refused; ``secure_cookies`` also gives the cookies the ``__Host-`` prefix
    (:mod:`pateval.assess.limits`)."""
    from starlette.convertors import register_url_convertor

    register_url_convertor("id", limits.IdConvertor())

    routes = [
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/password", password_page, methods=["GET"]),
        Route("/password", change_password, methods=["POST"]),
        Route("/", index, methods=["GET"]),
        Route("/source/{patent_key}", source_page, methods=["GET"]),
        Route("/source/{patent_key}/topics", add_topic, methods=["POST"]),
        Route("/source/{patent_key}/decision", decide, methods=["POST"]),
        Route("/topic/{topic_id:id}/claims", topic_claims, methods=["POST"]),
        Route("/topic/{topic_id:id}/delete", topic_delete, methods=["POST"]),
        Route("/pool/{topic_id:id}", pool_page, methods=["GET"]),
        Route("/agreement", agreement_page, methods=["GET"]),
        Route("/audit", audit_page, methods=["GET"]),
        Route("/api/sources", api_sources, methods=["GET"]),
        Route("/api/sources/{patent_key}", api_source, methods=["GET"]),
        Route("/api/documents/{ucid}", api_document, methods=["GET"]),
        Route("/api/topics/{topic_id:id}/citations/{ucid}/selection", api_selection, methods=["GET", "PUT"]),
        Route("/api/topics/{topic_id:id}/citations/{ucid}/undo", api_undo, methods=["POST"]),
        Route("/api/topics/{topic_id:id}/judgements", api_topic_judgements, methods=["GET"]),
        Route("/api/topics/{topic_id:id}/queue", api_queue, methods=["GET"]),
        Route("/api/assessors", api_assessors, methods=["GET"]),
        Route("/api/assessors/{name}", api_assessor, methods=["POST"]),
        Route("/api/agreement", api_agreement, methods=["GET"]),
        Route("/api/audit", api_audit, methods=["GET"]),
        Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
    ]
    # (each handler takes its own exception class; Starlette's type says Exception)
    handlers: dict = {AssessError: _assess_error, HTTPException: _http_error, DBAPIError: _database_error,
                      ClientDisconnect: _client_gone, Exception: _server_error}
    bounds = Middleware(limits.Bounds, max_body=max_body, max_login_body=max_login_body,
                        allowed_hosts=allowed_hosts, session_cookie=COOKIE)
    app = _App(routes=routes, middleware=[bounds], exception_handlers=handlers)
    app.guard = {"cookies": (COOKIE, LOGIN_COOKIE), "prefix": secure_cookies}
    app.state.engine = engine
    app.state.corpus = corpus
    app.state.secure_cookies = secure_cookies
    app.state.trusted_proxies = frozenset(trusted_proxies)
    app.state.session_idle, app.state.session_max = session_idle, session_max
    app.state.max_failed_logins = max_failed_logins
    app.state.login_throttle = LoginThrottle(limit=address_failures)
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.globals["ADJUDICATED"] = db.ADJUDICATED
    templates.env.filters["highlight"] = highlight
    app.state.templates = templates
    return app
