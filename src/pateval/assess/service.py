"""The assessment operations, shared by the web pages, the JSON API and the command line.

Every write checks who may do it (an assessor changes only their own selections; an
administrator adjudicates) and that the page is not stale (compare-and-set on a version),
validates every XPath against the cited document, and runs in one transaction with its
audit event.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections import Counter

from sqlalchemy import delete, func, insert, select, true, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from ..errors import ParameterError
from . import db
from .corpus import AssessCorpus
from .indications import REJECTION_REASONS, number_ranges

__all__ = ["ACCOUNT_EVENTS", "LOCKOUT_MINUTES", "LOGIN_REFUSED", "AssessError", "add_assessor", "add_topic",
           "all_grades", "all_selections", "assessors_list", "audit_log", "authenticate",
           "change_password", "check_id", "check_new_password", "check_topic_definition", "common_passwords",
           "decide_source", "delete_topic", "end_session", "ensure_topics", "hash_password", "insert_topic",
           "locked_until", "lockout_minutes", "manage_assessor", "needs_new_hash", "note_blocked_address",
           "open_source", "opening_topics", "parse_claims", "pool_topic_ids", "progress", "save_selection",
           "scrypt_parameters", "selection", "selections_of_topic", "session_user", "set_topic_claims",
           "source_state", "source_topics", "start_session", "topic", "topic_citations", "topic_ids", "topic_removal",
           "topics_of", "undo_selection", "verify_password", "write_selection"]

_QID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class AssessError(Exception):
    """A request that cannot be done: ``status`` is its HTTP status (400, 403, 404, 409)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---- accounts ----------------------------------------------------------------------------

#: scrypt's parameters for new password hashes: OWASP's Password Storage Cheat Sheet (2023 and
#: since): "a minimum CPU/memory cost parameter of (2^17), a minimum block size of 8 (1024 bytes),
#: and a parallelization parameter of 1" (128 MiB of memory per hash).
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2 ** 17, 8, 1
#: The parameters of the hashes schema 1-3 stored as ``scrypt$salt$hash`` (verified, then upgraded).
_LEGACY = (2 ** 14, 8, 1)
#: A lower scrypt cost, log2(N), for the test suite only (every login would otherwise cost a
#: second of CPU and 128 MiB); ``pateval assess serve`` warns when it is set.
SCRYPT_COST_VARIABLE = "PATEVAL_ASSESS_SCRYPT_LOG2N"
#: The shortest password accepted (OWASP ASVS 4.0 V2.1.1: at least 12 characters) and the longest.
MIN_PASSWORD, MAX_PASSWORD = 12, 1024
#: scrypt hashes computed at the same time (each holds 128 MiB): a burst of logins queues.
_HASHING = threading.BoundedSemaphore(2)


def scrypt_parameters() -> tuple[int, int, int]:
    """(N, r, p) of new hashes: OWASP's, unless the test suite lowered N."""
    value = os.environ.get(SCRYPT_COST_VARIABLE)
    if value is None:
        return SCRYPT_N, SCRYPT_R, SCRYPT_P
    if not value.isdigit() or not 4 <= int(value) <= 22:
        raise ParameterError(f"{SCRYPT_COST_VARIABLE}={value[:20]!r}: give log2 of scrypt's N, 4 to 22")
    return 2 ** int(value), SCRYPT_R, SCRYPT_P


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    with _HASHING:
        return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32,
                              maxmem=2 * 128 * r * (n + p) + 2 ** 20)


def hash_password(password: str) -> str:
    """scrypt with a random 16-byte salt, stored with its parameters so that they can be raised
    later: ``scrypt$N$r$p$salt$hash`` (salt and hash in hex)."""
    n, r, p = scrypt_parameters()
    salt = secrets.token_bytes(16)
    return f"scrypt${n}${r}${p}${salt.hex()}${_scrypt(password, salt, n, r, p).hex()}"


def _parsed_hash(stored: str) -> tuple[int, int, int, bytes, str] | None:
    fields = stored.split("$")
    try:
        if len(fields) == 3 and fields[0] == "scrypt":  # schema 1-3: scrypt$salt$hash at N=2^14, r=8, p=1
            return (*_LEGACY, bytes.fromhex(fields[1]), fields[2])
        if len(fields) == 6 and fields[0] == "scrypt":
            n, r, p = int(fields[1]), int(fields[2]), int(fields[3])
            if n >= 2 and n & (n - 1) == 0 and n <= 2 ** 22 and 1 <= r <= 32 and 1 <= p <= 16:
                return n, r, p, bytes.fromhex(fields[4]), fields[5]
    except ValueError:
        pass
    return None  # "!" (a removed account) or anything unknown: no password matches


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the stored hash, in either stored form."""
    parsed = _parsed_hash(stored)
    if parsed is None:
        _dummy_check(password)
        return False
    n, r, p, salt, digest = parsed
    return hmac.compare_digest(_scrypt(password, salt, n, r, p).hex(), digest)


def needs_new_hash(stored: str) -> bool:
    """Whether a stored hash is in the old form or weaker than today's parameters (it is made
    again at the account's next successful login, when the password is at hand)."""
    parsed = _parsed_hash(stored)
    if parsed is None:
        return False
    n, r, p = scrypt_parameters()
    return stored.count("$") == 2 or parsed[0] < n or parsed[1] < r or parsed[2] < p


def _dummy_check(password: str) -> None:
    """The work of checking a password (one scrypt at today's parameters), for an account that
    does not exist or may not try now: the answer then takes as long as for a wrong password."""
    n, r, p = scrypt_parameters()
    _scrypt(password, bytes(16), n, r, p)


_COMMON: frozenset[str] | None = None


def common_passwords() -> frozenset[str]:
    """The list of common passwords shipped with pateval (data/passwords/README.md names its source)."""
    global _COMMON
    if _COMMON is None:
        import gzip
        from importlib.resources import files

        data = files("pateval").joinpath("data", "passwords", "common-passwords.txt.gz").read_bytes()
        _COMMON = frozenset(gzip.decompress(data).decode("utf-8").split())
    return _COMMON


_EDGES = "0123456789!@#$%^&*()-_=+.,;:?'\"/\\|[]{}<>~` "


def check_new_password(password: object, name: str | None = None) -> str:
    """``password`` when it may be a new password: 12 to 1024 characters, not a common password
    (also once digits and punctuation at its ends are taken away: ``password2024!``), not the
    account's name, not one character repeated; an AssessError saying which rule it breaks."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AssessError(400, f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AssessError(400, f"a password has at most {MAX_PASSWORD} characters")
    lowered = password.lower()
    core = lowered.strip(_EDGES)
    if lowered in common_passwords() or (len(core) >= 4 and core in common_passwords()):
        raise AssessError(400, "this password is among the most common ones (a list of about 20,000 "
                               "passwords): choose another")
    if len(set(lowered)) == 1 or (name and len(name) >= 3 and name.lower() in lowered):
        raise AssessError(400, "a password may not be one character repeated nor contain the account's name")
    return password


def add_assessor(engine: Engine, name: str, password: str, *, is_admin: bool = False) -> int:
    """Create an account; returns its id."""
    if not _NAME.fullmatch(name or ""):
        raise AssessError(400, f"assessor name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
    password_hash = _new_password_hash(password, name)
    try:
        with engine.begin() as connection:
            result = connection.execute(insert(db.assessors).values(
                name=name, password_hash=password_hash, is_admin=is_admin, created_at=db.now()))
            new_id = result.inserted_primary_key[0]  # type: ignore[index]  # an insert has its key
            _event(connection, new_id, "add-assessor", detail=json.dumps({"name": name, "admin": is_admin}))
            return new_id
    except IntegrityError:
        raise AssessError(409, f"an assessor named {name!r} exists already") from None


#: How long the k-th lock-out in a row of an account lasts, in minutes (the last for every one
#: after it); a successful login or an administrator's ``unlock`` starts the count again.
LOCKOUT_MINUTES = (15, 60, 240, 1440)

#: The one answer to a refused login, whatever the reason (no such account, not active, wrong
#: password, locked out): it does not tell whether the account exists.
LOGIN_REFUSED = "unknown name or wrong password (repeated failures lock an account for a while)"


def lockout_minutes(lockouts: int) -> int:
    """The length of the ``lockouts``-th lock-out in a row (:data:`LOCKOUT_MINUTES`)."""
    return LOCKOUT_MINUTES[min(max(lockouts, 1), len(LOCKOUT_MINUTES)) - 1]


def locked_until(row) -> _dt.datetime | None:
    """When the lock-out of an account row ends (None: not locked out, or no longer)."""
    if row["locked_at"] is None:
        return None
    until = _aware(row["locked_at"]) + _dt.timedelta(minutes=lockout_minutes(row["lockouts"]))
    return until if until > db.now() else None


def _claim_attempt(engine: Engine, name: str, max_failures: int) -> tuple[dict, int] | None:
    """Count one password attempt on the account ``name`` *before* its password is checked
    (committed, under the account row's lock), so that a burst of parallel guesses checks at
    most ``max_failures`` of them: the account row and the attempt's number in the series, or
    None when no password may be checked now (no such account, not active, locked out). The
    ``max_failures``-th attempt locks the account at once (for :func:`lockout_minutes`); a right
    password, even that one, lifts it again."""
    with engine.begin() as connection:
        row = connection.execute(select(db.assessors).where(db.assessors.c.name == name)
                                 .with_for_update()).mappings().first()
        if row is None or row["status"] != "active" or locked_until(row) is not None:
            return None
        # A lock-out that ended starts a new series of attempts (and the next lock is longer).
        failures = (0 if row["locked_at"] is not None else row["failed_logins"]) + 1
        values: dict = {"failed_logins": failures, "locked_at": None}
        if failures >= max_failures:
            values.update(locked_at=db.now(), lockouts=row["lockouts"] + 1)
        connection.execute(update(db.assessors).where(db.assessors.c.id == row["id"]).values(**values))
    return dict(row), failures


def authenticate(engine: Engine, name: str, password: str, *, max_failures: int = 10,
                 address: str | None = None) -> dict | None:
    """The account, when the name and password are right and it is active; None otherwise
    (whatever the reason: :data:`LOGIN_REFUSED`), after the same work whether or not the
    account exists or may try. Each attempt is counted before the password is checked
    (:func:`_claim_attempt`); the ``max_failures``-th wrong password in a row locks the
    account out (an audit event) for 15 minutes, then 1 hour, 4 hours and 24 hours at each
    new lock-out in a row (:data:`LOCKOUT_MINUTES`), or until an administrator unlocks it. A
    success clears the count and remakes a hash weaker than today's."""
    claim = _claim_attempt(engine, name, max_failures)
    if claim is None:
        _dummy_check(password)
        return None
    row, failures = claim
    if verify_password(password, row["password_hash"]):
        values: dict = {"failed_logins": 0, "locked_at": None, "lockouts": 0}
        with engine.begin() as connection:
            connection.execute(update(db.assessors).where(db.assessors.c.id == row["id"]).values(**values))
            if needs_new_hash(row["password_hash"]):  # unless the password was changed meanwhile
                connection.execute(update(db.assessors).where(
                    db.assessors.c.id == row["id"], db.assessors.c.password_hash == row["password_hash"])
                    .values(password_hash=hash_password(password)))
        return {**row, **values}
    if failures == max_failures:
        with engine.begin() as connection:
            _event(connection, None, "lock-assessor",
                   detail=json.dumps({"name": name, "failed_logins": failures, "address": address}))
    return None


#: What an administrator does to an account (``manage_assessor``) -> its audit action.
ACCOUNT_ACTIONS = {"disable": "disable-assessor", "enable": "enable-assessor", "remove": "remove-assessor",
                   "unlock": "unlock-assessor", "reset-password": "reset-password"}


def manage_assessor(engine: Engine, name: str, action: str, *, actor: dict | None = None,
                    password: str | None = None) -> None:
    """Disable, enable, remove, unlock an account or reset its password (``actor``: the
    administrator, None on the command line). Disabling, removing and a new password end
    the account's sessions at once. A removed account keeps its name (judgements and the
    audit log name it) but can never log in again."""
    if action not in ACCOUNT_ACTIONS:
        raise AssessError(400, f"action must be one of {', '.join(ACCOUNT_ACTIONS)}, not {action!r}")
    if actor is not None and not actor.get("is_admin"):
        raise AssessError(403, "only an administrator manages accounts")
    if actor is not None and actor["name"] == name and action in ("disable", "remove"):
        raise AssessError(400, f"{name} cannot {action} their own account")
    changes: dict[str, dict] = {"disable": {"status": "disabled"}, "enable": {"status": "active"},
                                "remove": {"status": "removed", "password_hash": "!", "is_admin": False},
                                "unlock": {"locked_at": None, "failed_logins": 0, "lockouts": 0}}
    values = changes[action] if action in changes else {"password_hash": _new_password_hash(password, name)}
    with engine.begin() as connection:
        row = connection.execute(select(db.assessors.c.id, db.assessors.c.status)
                                 .where(db.assessors.c.name == name)).first()
        if row is None:
            raise AssessError(404, f"no assessor named {name!r}")
        if row[1] == "removed":
            raise AssessError(409, f"the account {name} was removed")
        connection.execute(update(db.assessors).where(db.assessors.c.id == row[0]).values(**values))
        if action in ("disable", "remove", "reset-password"):
            connection.execute(delete(db.sessions).where(db.sessions.c.assessor_id == row[0]))
        _event(connection, actor["id"] if actor else None, ACCOUNT_ACTIONS[action], detail=json.dumps({"name": name}))


def change_password(engine: Engine, actor: dict, old: str, new: str, *, keep_session: str | None = None,
                    max_failures: int = 10, address: str | None = None) -> None:
    """An assessor's own new password (the old one checked, each attempt counted as a login
    is, so that a session cannot guess it without limit); their other sessions end."""
    password_hash = _new_password_hash(new, actor["name"])
    if authenticate(engine, actor["name"], old, max_failures=max_failures, address=address) is None:
        raise AssessError(403, "the current password is wrong (repeated failures lock the account for a while)")
    with engine.begin() as connection:
        connection.execute(update(db.assessors).where(db.assessors.c.id == actor["id"])
                           .values(password_hash=password_hash))
        connection.execute(delete(db.sessions).where(db.sessions.c.assessor_id == actor["id"],
                                                     db.sessions.c.token_hash != _token_hash(keep_session or "")))
        _event(connection, actor["id"], "change-password", detail=json.dumps({"name": actor["name"]}))


def assessors_list(engine: Engine) -> list[dict]:
    """Every account: name, admin, status, locked, failed logins."""
    with engine.connect() as connection:
        rows = connection.execute(select(db.assessors).order_by(db.assessors.c.name)).mappings().all()
    return [{"name": r["name"], "is_admin": bool(r["is_admin"]), "status": r["status"],
             "locked": locked_until(r) is not None, "failed_logins": r["failed_logins"]} for r in rows]


def _new_password_hash(password: object, name: str | None = None) -> str:
    return hash_password(check_new_password(password, name))


# ---- sessions ----------------------------------------------------------------------------

def _token_hash(token: str) -> str:
    # The token is 256 random bits: a plain SHA-256 cannot be reversed or guessed.
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _aware(moment: _dt.datetime) -> _dt.datetime:
    """SQLite gives back naive datetimes; they were written in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=_dt.UTC)


def start_session(engine: Engine, assessor_id: int, *, idle: float, maximum: float) -> str:
    """A new session of the account: the random token for the cookie (the database keeps
    its hash). Expired sessions of every account are dropped on the way."""
    token = secrets.token_urlsafe(32)
    moment = db.now()
    with engine.begin() as connection:
        connection.execute(delete(db.sessions).where(
            (db.sessions.c.last_seen < moment - _dt.timedelta(seconds=idle))
            | (db.sessions.c.created_at < moment - _dt.timedelta(seconds=maximum))))
        connection.execute(insert(db.sessions).values(token_hash=_token_hash(token), assessor_id=assessor_id,
                                                      created_at=moment, last_seen=moment))
    return token


def session_user(engine: Engine, token: str | None, *, idle: float, maximum: float) -> dict | None:
    """The active account of a session token (None when unknown, ended or expired: idle
    for more than ``idle`` seconds or older than ``maximum``)."""
    if not token or len(token) > 128:
        return None
    key = _token_hash(token)
    with engine.connect() as connection:
        row = connection.execute(
            select(db.sessions.c.created_at.label("session_started"), db.sessions.c.last_seen, db.assessors)
            .join(db.assessors, db.assessors.c.id == db.sessions.c.assessor_id)
            .where(db.sessions.c.token_hash == key)).mappings().first()
    if row is None:
        return None
    moment = db.now()
    age, quiet = moment - _aware(row["session_started"]), moment - _aware(row["last_seen"])
    if row["status"] != "active" or age.total_seconds() > maximum or quiet.total_seconds() > idle:
        end_session(engine, token)
        return None
    if quiet.total_seconds() > 60:  # not a write per request
        with engine.begin() as connection:
            connection.execute(update(db.sessions).where(db.sessions.c.token_hash == key).values(last_seen=moment))
    return {k: v for k, v in row.items() if k not in ("session_started", "last_seen")}


def end_session(engine: Engine, token: str | None) -> None:
    if token:
        with engine.begin() as connection:
            connection.execute(delete(db.sessions).where(db.sessions.c.token_hash == _token_hash(token)))


def note_blocked_address(engine: Engine, address: str, failures: int) -> None:
    """The audit event of an address refused for its failed logins."""
    with engine.begin() as connection:
        _event(connection, None, "block-address", detail=json.dumps({"address": address, "failed_logins": failures}))


def _event(connection, actor_id, action, **values) -> None:
    connection.execute(insert(db.events).values(at=db.now(), assessor_id=actor_id, action=action, **values))


# ---- topics ------------------------------------------------------------------------------

def parse_claims(text: str, highest: int | None = None, *, of: str = "the source") -> tuple[int, ...]:
    """``1-3,7`` -> (1, 2, 3, 7); an AssessError for anything else, and for a claim above
    ``highest`` (the last claim of ``of``): checked on the ranges before any is expanded, so the work is linear in the
    length of the text however its ranges repeat."""
    ranges = number_ranges(text or "")
    if not ranges or ranges[0][0] < 1:
        shown = text if len(text or "") <= 40 else text[:40] + "..."
        raise AssessError(400, f"claims {shown!r}: give claim numbers such as 1-3,7")
    if highest is not None and ranges[-1][1] > highest:
        beyond = next(max(low, highest + 1) for low, high in ranges if high > highest)
        raise AssessError(400, f"{of} has no claim {beyond} (claims 1-{highest})")
    return tuple(n for low, high in ranges for n in range(low, high + 1))


#: The largest id or version a database column holds (a signed 64-bit integer).
_LARGEST = 2 ** 63 - 1


def check_id(name: str, value: object) -> int:
    """``value`` as a non-negative integer that a database column holds; 400 otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _LARGEST:
        raise AssessError(400, f"{name} must be an integer from 0 to {_LARGEST}")
    return value


def _claims_text(numbers) -> str:
    return ",".join(str(n) for n in sorted(set(numbers)))


def source_topics(corpus: AssessCorpus, patent_key: str) -> list[tuple[str, tuple[int, ...]]]:
    """The first topic definitions of a source: the collection's passage topics of the patent,
    else one topic per distinct relevant-claims set of its in-corpus citations
    (``sp-<n>.<k>``), as the CLEF-IP organisers defined them."""
    source = corpus.source(patent_key)
    if source is None:
        raise AssessError(404, f"no topic source {patent_key}")
    wanted = [(qid, tuple(claims)) for qid, claims in source.suggested_topics]
    if not wanted:
        sets = dict.fromkeys(c.relevant_claims for c in corpus.citations(patent_key)
                             if c.in_corpus and c.relevant_claims)
        number = corpus.patent_keys.index(patent_key) + 1 if patent_key in corpus.patent_keys else 0
        wanted = [(f"sp-{number}.{k}", tuple(claims)) for k, claims in enumerate(sets, start=1)]
    return wanted


def _source_opened(connection, patent_key: str) -> bool:
    topics_known = connection.execute(select(func.count()).select_from(db.topics)
                                      .where(db.topics.c.patent_key == patent_key)).scalar()
    return bool(topics_known) or connection.execute(
        select(db.sources.c.patent_key).where(db.sources.c.patent_key == patent_key)).first() is not None


def opening_topics(connection, corpus: AssessCorpus, patent_key: str) -> list[tuple[str, tuple[int, ...]]]:
    """The topics :func:`open_source` would define for the source now (none once it is
    opened, none when one of their ids is taken by another topic, even a removed one)."""
    if _source_opened(connection, patent_key):
        return []
    wanted = source_topics(corpus, patent_key)
    taken = connection.execute(select(db.topics.c.qid).where(db.topics.c.qid.in_([q for q, _c in wanted]))).first()
    return [] if taken is not None else wanted


def open_source(connection, corpus: AssessCorpus, patent_key: str) -> None:
    """Inside the caller's transaction: give a source its row and its first topic definitions
    (:func:`source_topics`), once."""
    if _source_opened(connection, patent_key):
        return
    wanted = opening_topics(connection, corpus, patent_key)
    connection.execute(insert(db.sources).values(patent_key=patent_key, status="open", version=0))
    for qid, claims in wanted:
        connection.execute(insert(db.topics).values(qid=qid, patent_key=patent_key, claims=_claims_text(claims),
                                                    created_at=db.now(), deleted=False))


def ensure_topics(engine: Engine, corpus: AssessCorpus, patent_key: str) -> None:
    """Give a source its first topic definitions, once (:func:`open_source`)."""
    with engine.connect() as connection:
        if _source_opened(connection, patent_key):
            return
    if corpus.source(patent_key) is None:
        raise AssessError(404, f"no topic source {patent_key}")
    # Another request may define them first (then the row exists and this one does nothing).
    with contextlib.suppress(IntegrityError), engine.begin() as connection:
        open_source(connection, corpus, patent_key)


def topics_of(engine: Engine, patent_key: str) -> list[dict]:
    with engine.connect() as connection:
        rows = connection.execute(select(db.topics).where(db.topics.c.patent_key == patent_key,
                                                          db.topics.c.deleted.is_(False))
                                  .order_by(db.topics.c.id)).mappings().all()
    return [{**dict(row), "claim_numbers": [int(c) for c in row["claims"].split(",") if c]} for row in rows]


def topic_ids(engine: Engine) -> dict[str, tuple[int, str]]:
    """qid -> (topic id, patent key) of every topic not deleted, in the order of the ids."""
    with engine.connect() as connection:
        return {q: (i, p) for i, q, p in connection.execute(
            select(db.topics.c.id, db.topics.c.qid, db.topics.c.patent_key).where(db.topics.c.deleted.is_(False))
            .order_by(db.topics.c.id))}


def pool_topic_ids(engine: Engine) -> set[int]:
    """The ids of the pool topics (:mod:`pateval.assess.pools`)."""
    with engine.connect() as connection:
        return set(connection.execute(select(db.topics.c.id).where(db.topics.c.pool_id.is_not(None))).scalars())


def topic(engine: Engine, topic_id: int) -> dict:
    check_id("topic id", topic_id)
    with engine.connect() as connection:
        row = connection.execute(select(db.topics).where(db.topics.c.id == topic_id,
                                                         db.topics.c.deleted.is_(False))).mappings().first()
    if row is None:
        raise AssessError(404, f"no topic {topic_id}")
    return {**dict(row), "claim_numbers": [int(c) for c in row["claims"].split(",") if c]}


def check_topic_definition(corpus: AssessCorpus, patent_key: str, qid: str, claims: str) -> tuple[int, ...]:
    """The claim numbers of a valid topic definition; an AssessError naming what is wrong."""
    if corpus.source(patent_key) is None:
        raise AssessError(404, f"no topic source {patent_key}")
    if not _QID.fullmatch(qid or ""):
        raise AssessError(400, f"topic id {qid!r}: up to 64 letters, digits, '.', '_', '-', starting with a "
                               "letter (PSG-12, sp-8.all)")
    return _check_claims(corpus, patent_key, claims)


def add_topic(engine: Engine, corpus: AssessCorpus, patent_key: str, qid: str, claims: str, actor: dict) -> int:
    numbers = check_topic_definition(corpus, patent_key, qid, claims)
    ensure_topics(engine, corpus, patent_key)
    with engine.begin() as connection:
        return insert_topic(connection, patent_key=patent_key, qid=qid, claims=numbers, actor=actor)


def insert_topic(connection, *, patent_key: str, qid: str, claims, actor: dict) -> int:
    """Insert a checked topic definition inside the caller's transaction; returns its id.

    The id of a deleted topic may be given again: the deleted row keeps its own id (its
    judgements and events stay with it, never with the new topic) and its qid becomes
    ``~<row id>~<qid>``, which no valid topic id can equal."""
    deleted = connection.execute(select(db.topics.c.id).where(db.topics.c.qid == qid,
                                                              db.topics.c.deleted.is_(True))).scalars().all()
    if deleted and not actor.get("is_admin"):
        admin = connection.execute(
            select(db.assessors.c.name).join(db.events, db.events.c.assessor_id == db.assessors.c.id)
            .where(db.events.c.topic_id.in_(deleted), db.events.c.action == "delete-topic",
                   db.assessors.c.is_admin.is_(True)).order_by(db.assessors.c.name).limit(1)).scalar()
        if admin is not None:
            raise AssessError(403, f"{admin}, an administrator, removed the topic {qid}: only an administrator "
                                   "may define it again")
    for row_id in deleted:
        connection.execute(update(db.topics).where(db.topics.c.id == row_id)
                           .values(qid=f"~{row_id}~{qid}"[:64]))
    try:
        with connection.begin_nested():
            result = connection.execute(insert(db.topics).values(
                qid=qid, patent_key=patent_key, claims=_claims_text(claims), created_by=actor["id"],
                created_at=db.now(), deleted=False))
    except IntegrityError:
        raise AssessError(409, f"topic id {qid} exists already") from None
    topic_id = result.inserted_primary_key[0]
    _event(connection, actor["id"], "add-topic", topic_id=topic_id,
           detail=json.dumps({"qid": qid, "claims": list(claims)}))
    return topic_id


def _check_claims(corpus, patent_key, claims) -> tuple[int, ...]:
    have = {n for n, _t, _d in corpus.source(patent_key).claims}
    numbers = parse_claims(claims, max(have, default=0), of=patent_key)
    if missing := [n for n in numbers if n not in have]:
        raise AssessError(400, f"{patent_key} has no claim {missing[0]} (claims 1-{max(have) if have else 0})")
    return numbers


def set_topic_claims(engine: Engine, corpus: AssessCorpus, topic_id: int, claims: str, actor: dict, *,
                     base_version: int) -> int:
    """Change a topic's claims if the topic is still at ``base_version``; returns the new
    version (409 when another page changed it first)."""
    current = topic(engine, topic_id)
    _not_a_pool_topic(current, "change the claims of")
    numbers = _check_claims(corpus, current["patent_key"], claims)
    with engine.begin() as connection:
        _check_topic_rights(connection, current, actor, "change the claims of")
        changed = connection.execute(
            update(db.topics).where(db.topics.c.id == topic_id, db.topics.c.version == base_version)
            .values(claims=_claims_text(numbers), version=db.topics.c.version + 1))
        if changed.rowcount != 1:
            raise AssessError(409, f"another page changed the claims of {current['qid']} first; reload to see them")
        _event(connection, actor["id"], "set-claims", topic_id=topic_id, version=base_version + 1,
               before=json.dumps(current["claim_numbers"]), after=json.dumps(list(numbers)))
    return base_version + 1


def topic_removal(engine: Engine, topic_id: int, actor: dict, *, base_version: int) -> dict:
    """What removing a topic would hide, for the confirmation step, after the checks of
    :func:`delete_topic` (403, 409): the topic and ``{owner: saved selections}``."""
    current = topic(engine, topic_id)
    with engine.connect() as connection:
        _check_removal(connection, current, actor, base_version)
        counts = connection.execute(select(db.selections.c.owner, func.count()).where(
            db.selections.c.topic_id == topic_id).group_by(db.selections.c.owner).order_by(db.selections.c.owner))
        return {"topic": current, "selections": dict(counts.all())}


def _not_a_pool_topic(current: dict, what: str) -> None:
    """A pool topic is defined by its pool file (its queue, its runs): 400 for a change."""
    if current["pool_id"] is not None:
        raise AssessError(400, f"{current['qid']} is a pool topic, defined by its pool file: one cannot {what} it")


def _check_removal(connection, current: dict, actor: dict, base_version: int) -> None:
    _not_a_pool_topic(current, "remove")
    if not actor.get("is_admin") and current["created_by"] != actor["id"]:
        raise AssessError(403, f"only an administrator removes a topic {actor['name']} did not add "
                               f"({current['qid']})")
    _check_topic_rights(connection, current, actor, "remove")
    if current["version"] != base_version:
        raise AssessError(409, f"another page changed {current['qid']} first; reload to see it")


def delete_topic(engine: Engine, topic_id: int, actor: dict, *, base_version: int) -> None:
    """Remove a topic if it is still at ``base_version`` (409 otherwise): an administrator
    may remove any; an assessor only one they added and nobody else has judged (403).
    Its id may then be given to a new topic (:func:`insert_topic`)."""
    current = topic(engine, topic_id)
    with engine.begin() as connection:
        _check_removal(connection, current, actor, base_version)
        changed = connection.execute(update(db.topics).where(
            db.topics.c.id == topic_id, db.topics.c.version == base_version, db.topics.c.deleted.is_(False))
            .values(deleted=True, version=db.topics.c.version + 1))
        if changed.rowcount != 1:
            raise AssessError(409, f"another page changed {current['qid']} first; reload to see it")
        _event(connection, actor["id"], "delete-topic", topic_id=topic_id, version=base_version + 1,
               detail=json.dumps({"qid": current["qid"]}))


def _check_topic_rights(connection, current: dict, actor: dict, what: str) -> None:
    """A topic's definition is everybody's once others have judged it, and an administrator's
    once an administrator added it or set its claims: only an administrator changes it then
    (the judgements of others would silently change meaning; a decision would be undone)."""
    if actor.get("is_admin"):
        return
    actors = select(db.events.c.assessor_id).where(db.events.c.topic_id == current["id"],
                                                   db.events.c.action == "set-claims")
    admin = connection.execute(select(db.assessors.c.name).where(
        db.assessors.c.is_admin.is_(True),
        (db.assessors.c.id == current["created_by"]) | db.assessors.c.id.in_(actors))
        .order_by(db.assessors.c.name).limit(1)).scalar()
    if admin is not None:
        raise AssessError(403, f"{admin}, an administrator, defined the claims of {current['qid']}: only an "
                               f"administrator may {what} it")
    others = connection.execute(select(db.selections.c.owner).where(
        db.selections.c.topic_id == current["id"], db.selections.c.owner != actor["name"])
        .order_by(db.selections.c.owner).limit(1)).first()
    if others is not None:
        raise AssessError(403, f"{others[0]} has judged {current['qid']}: only an administrator may {what} it")


# ---- selections --------------------------------------------------------------------------

def _selection_row(connection, topic_id, cited_ucid, owner):
    return connection.execute(select(db.selections).where(
        db.selections.c.topic_id == topic_id, db.selections.c.cited_ucid == cited_ucid,
        db.selections.c.owner == owner)).mappings().first()


def selection(engine: Engine, topic_id: int, cited_ucid: str, owner: str) -> dict:
    """``{"version": v, "xpaths": [...], "grade": g, "saved_at": ..., "saved_by": ...,
    "undo_steps": n}`` (version 0: never saved; ``g`` None: not graded, a citation's
    selection; ``n`` undos can follow each other)."""
    with engine.connect() as connection:
        row = _selection_row(connection, topic_id, cited_ucid, owner)
        if row is None:
            return {"version": 0, "xpaths": [], "grade": None, "saved_at": None, "saved_by": None, "undo_steps": 0}
        steps = len(_undo_history(connection, topic_id, cited_ucid, owner)[0])
        xpaths = _judged(connection, row["id"])
        by = connection.execute(select(db.assessors.c.name).where(db.assessors.c.id == row["saved_by"])).scalar()
    return {"version": row["version"], "xpaths": xpaths, "grade": row["grade"], "saved_at": row["saved_at"].isoformat()
            if row["saved_at"] else None, "saved_by": by, "undo_steps": steps}


def selections_of_topic(engine: Engine, topic_id: int) -> dict[tuple[str, str], list[str]]:
    """(cited ucid, owner) -> selected XPaths of every saved selection of a topic."""
    return all_selections(engine, topic_id).get(topic_id, {})


def all_selections(engine: Engine, topic_id: int | None = None) -> dict[int, dict[tuple[str, str], list[str]]]:
    """Every saved selection (of the topic ``topic_id`` only, when given), by topic id: (cited
    ucid, owner) -> selected XPaths (one query)."""
    out: dict[int, dict[tuple[str, str], list[str]]] = {}
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.selections.c.topic_id, db.selections.c.cited_ucid, db.selections.c.owner,
                   db.judgements.c.xpath)
            .join(db.judgements, db.judgements.c.selection_id == db.selections.c.id, isouter=True)
            .where(db.selections.c.topic_id == topic_id if topic_id is not None else true())
            .order_by(db.selections.c.topic_id, db.selections.c.cited_ucid, db.selections.c.owner,
                      db.judgements.c.xpath)).all()
    for topic_id, cited, owner, xpath in rows:
        xpaths = out.setdefault(topic_id, {}).setdefault((cited, owner), [])
        if xpath is not None:
            xpaths.append(xpath)
    for selections in out.values():
        for xpaths in selections.values():
            xpaths.sort()  # in Python's order, whatever the database's collation
    return out


def all_grades(engine: Engine, topic_id: int | None = None) -> dict[int, dict[tuple[str, str], int]]:
    """Every graded judgement (pool topics; of the topic ``topic_id`` only, when given), by
    topic id: (docno, owner) -> grade."""
    out: dict[int, dict[tuple[str, str], int]] = {}
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.selections.c.topic_id, db.selections.c.cited_ucid, db.selections.c.owner, db.selections.c.grade)
            .where(db.selections.c.grade.is_not(None),
                   db.selections.c.topic_id == topic_id if topic_id is not None else true())
            .order_by(db.selections.c.topic_id, db.selections.c.cited_ucid, db.selections.c.owner)).all()
    for topic_id, docno, owner, grade in rows:
        out.setdefault(topic_id, {})[(docno, owner)] = grade
    return out


def _may_write(actor: dict, owner: str) -> None:
    if owner == db.ADJUDICATED:
        if not actor.get("is_admin"):
            raise AssessError(403, "only an administrator adjudicates")
    elif owner != actor["name"]:
        raise AssessError(403, f"{actor['name']} cannot change the judgements of {owner}")


def save_selection(engine: Engine, corpus: AssessCorpus, *, topic_id: int, cited_ucid: str, owner: str,
                   xpaths, base_version: object, actor: dict, action: str = "save", grade: object = None) -> int:
    """Replace a selection by ``xpaths`` (and, on a pool topic, its document's ``grade``) if it
    is still at ``base_version``; returns the new version. 409 when another save came first
    (the page is stale).

    A citation topic judges the documents its source's search report cites (passages, no
    grade); a pool topic the documents in its queue (:mod:`pateval.assess.pools`): a grade from
    0 to the pool's highest, and passages where the corpus has the document's text (none on a
    document graded 0)."""
    _may_write(actor, owner)
    current_topic = topic(engine, topic_id)
    if current_topic["pool_id"] is None:
        if grade is not None:
            raise AssessError(400, f"{current_topic['qid']} is a citation topic: its judgements are passages, "
                                   "not grades")
        if not any(c.cited_ucid == cited_ucid for c in topic_citations(corpus, current_topic)):
            raise AssessError(404, f"{cited_ucid} is not cited against the claims of {current_topic['qid']} in the "
                                   f"search report of {current_topic['patent_key']}")
        document = corpus.document(cited_ucid)
        if document is None:
            raise AssessError(404, f"{cited_ucid} is not in the corpus")
    else:
        grade = _pool_grade(engine, current_topic, cited_ucid, grade, undo=action == "undo")
        document = corpus.document(cited_ucid) if len(cited_ucid) <= 64 else None
    if not isinstance(xpaths, (list, tuple)) or not all(isinstance(x, str) for x in xpaths):
        raise AssessError(400, "xpaths must be a list of strings")
    wanted = sorted(set(xpaths))
    if wanted and document is None:
        raise AssessError(400, f"{cited_ucid} is not in the corpus: grade it, there is no passage to select")
    if wanted and grade == 0:
        raise AssessError(400, f"a document graded 0 (not relevant) has no relevant passage: give it a grade of 1 "
                               f"or more, or clear its passages ({cited_ucid})")
    allowed = document.selectable if document is not None else frozenset()
    for xpath in wanted:
        if xpath not in allowed:
            headings = {p.xpath for p in document.passages if p.is_heading} if document is not None else set()
            why = "is a heading" if xpath in headings else "is not a passage of the document"
            raise AssessError(400, f"{xpath} {why} ({cited_ucid})")
    base_version = check_id("version", base_version)
    with engine.begin() as connection:
        return write_selection(connection, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner, xpaths=wanted,
                               base_version=base_version, actor=actor, action=action,
                               grade=grade if current_topic["pool_id"] is not None else _NO_GRADE)


#: ``write_selection``'s grade of a citation topic's selection (which has none).
_NO_GRADE = object()


def _pool_grade(engine: Engine, current: dict, docno: str, grade: object, *, undo: bool) -> int | None:
    """The grade of a pool judgement once checked: an integer from 0 to the pool's highest
    grade (None, not graded, only when an undo puts back the state before the first save);
    the document must be in the topic's queue (404)."""
    with engine.connect() as connection:
        found = connection.execute(
            select(db.pool_documents.c.drawn, db.pools.c.max_grade)
            .join(db.pools, db.pools.c.id == current["pool_id"])
            .where(db.pool_documents.c.topic_id == current["id"], db.pool_documents.c.docno == docno)).first()
    if found is None or not found[0]:
        raise AssessError(404, f"{docno} is not in the queue of {current['qid']}")
    highest = found[1]
    if grade is None and undo:
        return None
    if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade <= highest:
        raise AssessError(400, f"grade must be an integer from 0 to {highest} (0: not relevant)")
    return grade


def write_selection(connection, *, topic_id: int, cited_ucid: str, owner: str, xpaths: list[str],
                    base_version: int, actor: dict, action: str = "save", grade: object = _NO_GRADE) -> int:
    """The write of :func:`save_selection` inside the caller's transaction (XPaths already
    checked): compare-and-set on the version, the judgement rows, the audit event. A save
    repeated after its answer was lost (the selection is at ``base_version + 1``, saved by
    the same account with the same passages and grade) returns that version without a new
    one. ``grade``: a pool judgement's grade (kept in the selection, its event's detail holding
    the grades before and after)."""
    wanted = sorted(set(xpaths))
    graded = grade is not _NO_GRADE
    new_grade = grade if graded else None
    old_grade = None
    if (row := _selection_row(connection, topic_id, cited_ucid, owner)) is None:
        if base_version != 0:
            raise AssessError(409, "this selection was removed meanwhile; reload the page")
        try:
            with connection.begin_nested():
                result = connection.execute(insert(db.selections).values(
                    topic_id=topic_id, cited_ucid=cited_ucid, owner=owner, version=1, saved_by=actor["id"],
                    saved_at=db.now(), grade=new_grade))
        except IntegrityError:
            raise AssessError(409, "another page saved this selection first; reload to see it") from None
        selection_id, before, version = result.inserted_primary_key[0], [], 1
    else:
        selection_id = row["id"]
        old_grade = row["grade"]
        if row["version"] == base_version + 1 and row["saved_by"] == actor["id"] and _judged(
                connection, selection_id) == wanted and row["grade"] == new_grade:
            return row["version"]  # a retry of a save that was done (its answer lost): nothing to do again
        changed = connection.execute(
            update(db.selections)
            .where(db.selections.c.id == selection_id, db.selections.c.version == base_version)
            .values(version=db.selections.c.version + 1, saved_by=actor["id"], saved_at=db.now(), grade=new_grade))
        if changed.rowcount != 1:
            raise AssessError(409, f"another page saved this selection first (version {row['version']}, "
                                   f"yours {base_version}); reload to see it")
        version = base_version + 1
        before = _judged(connection, selection_id)
        connection.execute(delete(db.judgements).where(db.judgements.c.selection_id == selection_id))
    if wanted:
        connection.execute(insert(db.judgements), [{"selection_id": selection_id, "xpath": x} for x in wanted])
    _event(connection, actor["id"], action, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner,
           version=version, before=json.dumps(before), after=json.dumps(wanted),
           detail=json.dumps({"grade_before": old_grade, "grade": new_grade}) if graded else None)
    return version


def _undo_history(connection, topic_id: int, cited_ucid: str, owner: str
                  ) -> tuple[list[tuple[list[str], int | None]], int]:
    """The selections successive undos put back (the next one last), each with its grade
    (None for a citation's selection), and the current version, by replaying the selection's
    events: a save pushes the selection it replaced, an undo pops the one it put back."""
    rows = connection.execute(
        select(db.events.c.action, db.events.c.before, db.events.c.version, db.events.c.detail)
        .where(db.events.c.topic_id == topic_id, db.events.c.cited_ucid == cited_ucid,
               db.events.c.owner == owner, db.events.c.action.in_(("save", "undo")))
        .order_by(db.events.c.version)).all()
    history: list[tuple[list[str], int | None]] = []
    for action, before, _version, detail in rows:
        if action == "save":
            history.append((json.loads(before), json.loads(detail)["grade_before"] if detail else None))
        elif history:
            history.pop()
    return history, rows[-1][2] if rows else 0


def _judged(connection, selection_id: int) -> list[str]:
    return sorted(connection.execute(select(db.judgements.c.xpath)
                                     .where(db.judgements.c.selection_id == selection_id)).scalars())


def topic_citations(corpus: AssessCorpus, current: dict) -> list:
    """The citations judged for a topic: those relevant to its claims, else (none is) all
    of the source's citations."""
    citations = corpus.citations(current["patent_key"])
    claims = set(current["claim_numbers"])
    return [c for c in citations if set(c.relevant_claims) & claims] or list(citations)


def undo_selection(engine: Engine, corpus: AssessCorpus, *, topic_id: int, cited_ucid: str, owner: str,
                   base_version: object, actor: dict) -> int:
    """Put back the selection as it was before its last save not undone yet (itself a new
    version): undo after undo goes back one save further each time."""
    check_id("topic id", topic_id)
    base_version = check_id("version", base_version)
    with engine.connect() as connection:
        history, version = _undo_history(connection, topic_id, cited_ucid, owner)
    if not history:
        raise AssessError(409, "nothing to undo")
    if version != base_version:
        raise AssessError(409, f"another page saved this selection first (version {version}, yours {base_version}); "
                               "reload to see it")
    xpaths, grade = history[-1]
    return save_selection(engine, corpus, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner,
                          xpaths=xpaths, base_version=base_version, actor=actor, action="undo", grade=grade)


# ---- sources -----------------------------------------------------------------------------

def source_state(engine: Engine, patent_key: str) -> dict:
    with engine.connect() as connection:
        row = connection.execute(select(db.sources).where(db.sources.c.patent_key == patent_key)).mappings().first()
        name = None
        if row is not None and row["decided_by"] is not None:
            name = connection.execute(select(db.assessors.c.name)
                                      .where(db.assessors.c.id == row["decided_by"])).scalar()
    if row is None:
        return {"status": "open", "reason": None, "note": None, "version": 0, "decided_by": None}
    return {**dict(row), "decided_by": name, "decided_at": row["decided_at"].isoformat() if row["decided_at"] else None}


#: The longest note of a decision (characters).
NOTE_LIMIT = 2000


def decide_source(engine: Engine, corpus: AssessCorpus, patent_key: str, *, status: str, reason: str | None,
                  note: str | None, base_version: int, actor: dict) -> int:
    """Retain or reject a topic candidate (with one of the seed's reasons or a free one). An
    assessor may not reject a source others have judged, nor change a decision an
    administrator made (403)."""
    if status not in ("retained", "rejected", "open"):
        raise AssessError(400, f"status must be retained, rejected or open, not {status!r}")
    if status == "rejected":
        if reason not in REJECTION_REASONS and reason != "other":
            raise AssessError(400, f"reason must be one of {', '.join([*REJECTION_REASONS, 'other'])}")
        if reason == "other" and not (note or "").strip():
            raise AssessError(400, "a rejection for another reason needs a note saying why")
    else:
        reason = None
    if len(note or "") > NOTE_LIMIT:
        raise AssessError(400, f"a note has at most {NOTE_LIMIT} characters (this one {len(note or '')})")
    check_id("version", base_version)
    ensure_topics(engine, corpus, patent_key)
    with engine.begin() as connection:
        if not actor.get("is_admin"):
            current = connection.execute(select(db.sources.c.status, db.sources.c.decided_by)
                                         .where(db.sources.c.patent_key == patent_key)).first()
            admin = _administrator(connection, current[1]) if current is not None else None
            if admin is not None and current is not None and current[0] != "open":
                raise AssessError(403, f"{admin}, an administrator, decided that {patent_key} is {current[0]}: "
                                       "only an administrator may change that")
        if status == "rejected" and not actor.get("is_admin"):
            # A rejected source leaves the export with everyone's judgements of it.
            others = connection.execute(
                select(db.selections.c.owner).join(db.topics, db.topics.c.id == db.selections.c.topic_id)
                .where(db.topics.c.patent_key == patent_key, db.topics.c.deleted.is_(False),
                       db.selections.c.owner != actor["name"])
                .order_by(db.selections.c.owner).limit(1)).first()
            if others is not None:
                raise AssessError(403, f"{others[0]} has judged {patent_key}: only an administrator may reject it")
        changed = connection.execute(
            update(db.sources).where(db.sources.c.patent_key == patent_key, db.sources.c.version == base_version)
            .values(status=status, reason=reason, note=(note or "").strip() or None, decided_by=actor["id"],
                    decided_at=db.now(), version=db.sources.c.version + 1))
        if changed.rowcount != 1:
            raise AssessError(409, "another page decided on this topic candidate first; reload to see it")
        _event(connection, actor["id"], "decide", detail=json.dumps(
            {"patent_key": patent_key, "status": status, "reason": reason, "note": note}))
    return base_version + 1


def _administrator(connection, assessor_id: int | None) -> str | None:
    """The name of the account ``assessor_id`` when it is an administrator's."""
    if assessor_id is None:
        return None
    return connection.execute(select(db.assessors.c.name).where(
        db.assessors.c.id == assessor_id, db.assessors.c.is_admin.is_(True))).scalar()


def progress(engine: Engine, corpus: AssessCorpus, patent_key: str) -> dict:
    """Citations in the corpus x topics, and how many of them have a saved selection
    (by anyone, by each assessor)."""
    in_corpus = [c.cited_ucid for c in corpus.citations(patent_key) if c.in_corpus]
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.topics.c.id, db.selections.c.cited_ucid, db.selections.c.owner)
            .join(db.selections, db.selections.c.topic_id == db.topics.c.id)
            .where(db.topics.c.patent_key == patent_key, db.topics.c.deleted.is_(False))
            .order_by(db.topics.c.id, db.selections.c.cited_ucid, db.selections.c.owner)).all()
        n_topics = connection.execute(select(func.count()).select_from(db.topics).where(
            db.topics.c.patent_key == patent_key, db.topics.c.deleted.is_(False))).scalar_one()
    if not n_topics and source_state(engine, patent_key)["version"] == 0:
        # Not opened yet: the topics it will get are the collection's (or one per claim set).
        source = corpus.source(patent_key)
        n_topics = len(source.suggested_topics) if source is not None else 0
    done = {(t, c) for t, c, _o in rows if c in in_corpus}
    return {"units": n_topics * len(in_corpus), "done": len(done), "by_owner": dict(Counter(o for _t, _c, o in rows))}


#: The audit log's account events: who has an account, who is an administrator, lock-outs and
#: the addresses they came from. Only administrators see them (:func:`audit_log`).
ACCOUNT_EVENTS = ("add-assessor", "block-address", "change-password", "disable-assessor", "enable-assessor",
                  "lock-assessor", "remove-assessor", "reset-password", "unlock-assessor")


def audit_log(engine: Engine, *, limit: int = 200, accounts: bool = True) -> list[dict]:
    """The last ``limit`` events, the newest first; without ``accounts`` (an assessor's view)
    the :data:`ACCOUNT_EVENTS` are left out."""
    query = (select(db.events, db.assessors.c.name, db.topics.c.qid)
             .join(db.assessors, db.assessors.c.id == db.events.c.assessor_id, isouter=True)
             .join(db.topics, db.topics.c.id == db.events.c.topic_id, isouter=True))
    if not accounts:
        query = query.where(db.events.c.action.not_in(ACCOUNT_EVENTS))
    with engine.connect() as connection:
        rows = connection.execute(query.order_by(db.events.c.id.desc()).limit(limit)).mappings().all()
    return [{**dict(r), "at": r["at"].isoformat()} for r in rows]
