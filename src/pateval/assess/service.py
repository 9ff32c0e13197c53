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
import re
import secrets
from collections import Counter

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from . import db
from .corpus import AssessCorpus
from .indications import REJECTION_REASONS

__all__ = ["AssessError", "add_assessor", "add_topic", "all_selections", "assessors_list", "audit_log", "authenticate",
           "change_password", "check_id", "check_topic_definition", "decide_source", "delete_topic", "ensure_topics",
           "end_session", "hash_password", "insert_topic", "manage_assessor", "note_blocked_address", "parse_claims",
           "progress", "save_selection", "selection", "selections_of_topic", "session_user", "set_topic_claims",
           "source_state", "start_session", "topic", "topic_citations", "topic_ids", "topic_removal", "topics_of",
           "undo_selection", "verify_password", "write_selection"]

_QID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class AssessError(Exception):
    """A request that cannot be done: ``status`` is its HTTP status (400, 403, 404, 409)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---- accounts ----------------------------------------------------------------------------

def hash_password(password: str) -> str:
    """scrypt (n=2**14, r=8, p=1) with a random 16-byte salt: ``scrypt$salt$hash`` in hex."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=2 ** 14, r=8, p=1, dklen=32)
    return f"scrypt${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    fields = stored.split("$")
    if len(fields) != 3 or fields[0] != "scrypt":
        return False
    candidate = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(fields[1]), n=2 ** 14, r=8, p=1, dklen=32)
    return hmac.compare_digest(candidate.hex(), fields[2])


def add_assessor(engine: Engine, name: str, password: str, *, is_admin: bool = False) -> int:
    """Create an account; returns its id."""
    if not _NAME.fullmatch(name or ""):
        raise AssessError(400, f"assessor name {name!r}: use 1-64 letters, digits, '.', '_' or '-'")
    password_hash = _new_password_hash(password)
    try:
        with engine.begin() as connection:
            result = connection.execute(insert(db.assessors).values(
                name=name, password_hash=password_hash, is_admin=is_admin, created_at=db.now()))
            new_id = result.inserted_primary_key[0]  # type: ignore[index]  # an insert has its key
            _event(connection, new_id, "add-assessor", detail=json.dumps({"name": name, "admin": is_admin}))
            return new_id
    except IntegrityError:
        raise AssessError(409, f"an assessor named {name!r} exists already") from None


def authenticate(engine: Engine, name: str, password: str, *, max_failures: int = 10,
                 address: str | None = None) -> dict | None:
    """The account, when the name and password are right and it is active; None otherwise.
    The ``max_failures``-th wrong password in a row locks the account out (an audit event)
    until an administrator unlocks it; a locked account is refused (403) whatever the
    password."""
    with engine.connect() as connection:
        row = connection.execute(select(db.assessors).where(db.assessors.c.name == name)).mappings().first()
    if row is None or row["status"] != "active":
        hash_password("timing")  # the same work whether or not the name exists
        return None
    if row["locked_at"] is not None:
        raise AssessError(403, f"the account {name} is locked after {row['failed_logins']} failed logins; "
                               "an administrator unlocks it")
    if verify_password(password, row["password_hash"]):
        if row["failed_logins"]:
            with engine.begin() as connection:
                connection.execute(update(db.assessors).where(db.assessors.c.id == row["id"]).values(failed_logins=0))
        return {**dict(row), "failed_logins": 0}
    with engine.begin() as connection:
        connection.execute(update(db.assessors).where(db.assessors.c.id == row["id"])
                           .values(failed_logins=db.assessors.c.failed_logins + 1))
        failures = connection.execute(select(db.assessors.c.failed_logins)
                                      .where(db.assessors.c.id == row["id"])).scalar_one()
        if failures >= max_failures:
            connection.execute(update(db.assessors).where(db.assessors.c.id == row["id"]).values(locked_at=db.now()))
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
                                "unlock": {"locked_at": None, "failed_logins": 0}}
    values = changes[action] if action in changes else {"password_hash": _new_password_hash(password)}
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


def change_password(engine: Engine, actor: dict, old: str, new: str, *, keep_session: str | None = None) -> None:
    """An assessor's own new password (the old one checked); their other sessions end."""
    with engine.connect() as connection:
        stored = connection.execute(select(db.assessors.c.password_hash)
                                    .where(db.assessors.c.id == actor["id"])).scalar_one()
    if not verify_password(old, stored):
        raise AssessError(403, "the current password is wrong")
    with engine.begin() as connection:
        connection.execute(update(db.assessors).where(db.assessors.c.id == actor["id"])
                           .values(password_hash=_new_password_hash(new)))
        connection.execute(delete(db.sessions).where(db.sessions.c.assessor_id == actor["id"],
                                                     db.sessions.c.token_hash != _token_hash(keep_session or "")))
        _event(connection, actor["id"], "change-password", detail=json.dumps({"name": actor["name"]}))


def assessors_list(engine: Engine) -> list[dict]:
    """Every account: name, admin, status, locked, failed logins."""
    with engine.connect() as connection:
        rows = connection.execute(select(db.assessors).order_by(db.assessors.c.name)).mappings().all()
    return [{"name": r["name"], "is_admin": bool(r["is_admin"]), "status": r["status"],
             "locked": r["locked_at"] is not None, "failed_logins": r["failed_logins"]} for r in rows]


def _new_password_hash(password: str | None) -> str:
    if not isinstance(password, str) or len(password) < 8:
        raise AssessError(400, "a password needs at least 8 characters")
    if len(password) > 1024:
        raise AssessError(400, "a password has at most 1024 characters")
    return hash_password(password)


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
    from .indications import number_ranges

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


def ensure_topics(engine: Engine, corpus: AssessCorpus, patent_key: str) -> None:
    """Give a source its first topic definitions, once: the collection's passage topics
    of the patent, else one topic per distinct relevant-claims set of its in-corpus
    citations (``sp-<n>.<k>``), as the CLEF-IP organisers defined them."""
    with engine.connect() as connection:
        known = connection.execute(select(func.count()).select_from(db.topics)
                                   .where(db.topics.c.patent_key == patent_key)).scalar()
        source_known = connection.execute(select(db.sources.c.patent_key)
                                          .where(db.sources.c.patent_key == patent_key)).first()
    if known or source_known:
        return
    source = corpus.source(patent_key)
    if source is None:
        raise AssessError(404, f"no topic source {patent_key}")
    wanted = list(source.suggested_topics)
    if not wanted:
        sets = dict.fromkeys(c.relevant_claims for c in corpus.citations(patent_key)
                             if c.in_corpus and c.relevant_claims)
        number = corpus.patent_keys.index(patent_key) + 1 if patent_key in corpus.patent_keys else 0
        wanted = [(f"sp-{number}.{k}", claims) for k, claims in enumerate(sets, start=1)]
    try:
        with engine.begin() as connection:
            connection.execute(insert(db.sources).values(patent_key=patent_key, status="open", version=0))
            for qid, claims in wanted:
                connection.execute(insert(db.topics).values(qid=qid, patent_key=patent_key,
                                                            claims=_claims_text(claims), created_at=db.now(),
                                                            deleted=False))
    except IntegrityError:
        # Another request defined them first, or a topic id is taken: the source still
        # needs its row (its decisions are versioned there).
        with contextlib.suppress(IntegrityError), engine.begin() as connection:
            connection.execute(insert(db.sources).values(patent_key=patent_key, status="open", version=0))


def topics_of(engine: Engine, patent_key: str) -> list[dict]:
    with engine.connect() as connection:
        rows = connection.execute(select(db.topics).where(db.topics.c.patent_key == patent_key,
                                                          db.topics.c.deleted.is_(False))
                                  .order_by(db.topics.c.id)).mappings().all()
    return [{**dict(row), "claim_numbers": [int(c) for c in row["claims"].split(",")]} for row in rows]


def topic_ids(engine: Engine) -> dict[str, tuple[int, str]]:
    """qid -> (topic id, patent key) of every topic not deleted, in the order of the ids."""
    with engine.connect() as connection:
        return {q: (i, p) for i, q, p in connection.execute(
            select(db.topics.c.id, db.topics.c.qid, db.topics.c.patent_key).where(db.topics.c.deleted.is_(False))
            .order_by(db.topics.c.id))}


def topic(engine: Engine, topic_id: int) -> dict:
    check_id("topic id", topic_id)
    with engine.connect() as connection:
        row = connection.execute(select(db.topics).where(db.topics.c.id == topic_id,
                                                         db.topics.c.deleted.is_(False))).mappings().first()
    if row is None:
        raise AssessError(404, f"no topic {topic_id}")
    return {**dict(row), "claim_numbers": [int(c) for c in row["claims"].split(",")]}


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


def _check_removal(connection, current: dict, actor: dict, base_version: int) -> None:
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
    """A topic's definition is everybody's once others have judged it: only an administrator
    changes it then (the judgements of others would silently change meaning)."""
    if actor.get("is_admin"):
        return
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
    """``{"version": v, "xpaths": [...], "saved_at": ..., "saved_by": ..., "undo_steps": n}``
    (version 0: never saved; ``n`` undos can follow each other)."""
    with engine.connect() as connection:
        row = _selection_row(connection, topic_id, cited_ucid, owner)
        if row is None:
            return {"version": 0, "xpaths": [], "saved_at": None, "saved_by": None, "undo_steps": 0}
        steps = len(_undo_history(connection, topic_id, cited_ucid, owner)[0])
        xpaths = _judged(connection, row["id"])
        by = connection.execute(select(db.assessors.c.name).where(db.assessors.c.id == row["saved_by"])).scalar()
    return {"version": row["version"], "xpaths": xpaths, "saved_at": row["saved_at"].isoformat()
            if row["saved_at"] else None, "saved_by": by, "undo_steps": steps}


def selections_of_topic(engine: Engine, topic_id: int) -> dict[tuple[str, str], list[str]]:
    """(cited ucid, owner) -> selected XPaths of every saved selection of a topic."""
    out: dict[tuple[str, str], list[str]] = {}
    with engine.connect() as connection:
        rows = connection.execute(select(db.selections.c.id, db.selections.c.cited_ucid, db.selections.c.owner)
                                  .where(db.selections.c.topic_id == topic_id)
                                  .order_by(db.selections.c.cited_ucid, db.selections.c.owner)).all()
        for selection_id, cited, owner in rows:
            out[(cited, owner)] = _judged(connection, selection_id)
    return out


def all_selections(engine: Engine) -> dict[int, dict[tuple[str, str], list[str]]]:
    """Every saved selection, by topic id: (cited ucid, owner) -> selected XPaths (one query)."""
    out: dict[int, dict[tuple[str, str], list[str]]] = {}
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.selections.c.topic_id, db.selections.c.cited_ucid, db.selections.c.owner,
                   db.judgements.c.xpath)
            .join(db.judgements, db.judgements.c.selection_id == db.selections.c.id, isouter=True)
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


def _may_write(actor: dict, owner: str) -> None:
    if owner == db.ADJUDICATED:
        if not actor.get("is_admin"):
            raise AssessError(403, "only an administrator adjudicates")
    elif owner != actor["name"]:
        raise AssessError(403, f"{actor['name']} cannot change the judgements of {owner}")


def save_selection(engine: Engine, corpus: AssessCorpus, *, topic_id: int, cited_ucid: str, owner: str,
                   xpaths, base_version: object, actor: dict, action: str = "save") -> int:
    """Replace a selection by ``xpaths`` if it is still at ``base_version``; returns the
    new version. 409 when another save came first (the page is stale)."""
    _may_write(actor, owner)
    current_topic = topic(engine, topic_id)
    if not any(c.cited_ucid == cited_ucid for c in topic_citations(corpus, current_topic)):
        raise AssessError(404, f"{cited_ucid} is not cited against the claims of {current_topic['qid']} in the "
                               f"search report of {current_topic['patent_key']}")
    document = corpus.document(cited_ucid)
    if document is None:
        raise AssessError(404, f"{cited_ucid} is not in the corpus")
    if not isinstance(xpaths, (list, tuple)) or not all(isinstance(x, str) for x in xpaths):
        raise AssessError(400, "xpaths must be a list of strings")
    wanted = sorted(set(xpaths))
    allowed = document.selectable
    for xpath in wanted:
        if xpath not in allowed:
            headings = {p.xpath for p in document.passages if p.is_heading}
            why = "is a heading" if xpath in headings else "is not a passage of the document"
            raise AssessError(400, f"{xpath} {why} ({cited_ucid})")
    base_version = check_id("version", base_version)
    with engine.begin() as connection:
        return write_selection(connection, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner, xpaths=wanted,
                               base_version=base_version, actor=actor, action=action)


def write_selection(connection, *, topic_id: int, cited_ucid: str, owner: str, xpaths: list[str],
                    base_version: int, actor: dict, action: str = "save") -> int:
    """The write of :func:`save_selection` inside the caller's transaction (XPaths already
    checked): compare-and-set on the version, the judgement rows, the audit event. A save
    repeated after its answer was lost (the selection is at ``base_version + 1``, saved by
    the same account with the same passages) returns that version without a new one."""
    wanted = sorted(set(xpaths))
    if (row := _selection_row(connection, topic_id, cited_ucid, owner)) is None:
        if base_version != 0:
            raise AssessError(409, "this selection was removed meanwhile; reload the page")
        try:
            with connection.begin_nested():
                result = connection.execute(insert(db.selections).values(
                    topic_id=topic_id, cited_ucid=cited_ucid, owner=owner, version=1, saved_by=actor["id"],
                    saved_at=db.now()))
        except IntegrityError:
            raise AssessError(409, "another page saved this selection first; reload to see it") from None
        selection_id, before, version = result.inserted_primary_key[0], [], 1
    else:
        selection_id = row["id"]
        if row["version"] == base_version + 1 and row["saved_by"] == actor["id"] and _judged(
                connection, selection_id) == wanted:
            return row["version"]  # a retry of a save that was done (its answer lost): nothing to do again
        changed = connection.execute(
            update(db.selections)
            .where(db.selections.c.id == selection_id, db.selections.c.version == base_version)
            .values(version=db.selections.c.version + 1, saved_by=actor["id"], saved_at=db.now()))
        if changed.rowcount != 1:
            raise AssessError(409, f"another page saved this selection first (version {row['version']}, "
                                   f"yours {base_version}); reload to see it")
        version = base_version + 1
        before = _judged(connection, selection_id)
        connection.execute(delete(db.judgements).where(db.judgements.c.selection_id == selection_id))
    if wanted:
        connection.execute(insert(db.judgements), [{"selection_id": selection_id, "xpath": x} for x in wanted])
    _event(connection, actor["id"], action, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner,
           version=version, before=json.dumps(before), after=json.dumps(wanted))
    return version


def _undo_history(connection, topic_id: int, cited_ucid: str, owner: str) -> tuple[list[list[str]], int]:
    """The selections successive undos put back (the next one last) and the current
    version, by replaying the selection's events: a save pushes the selection it replaced,
    an undo pops the one it put back."""
    rows = connection.execute(
        select(db.events.c.action, db.events.c.before, db.events.c.version)
        .where(db.events.c.topic_id == topic_id, db.events.c.cited_ucid == cited_ucid,
               db.events.c.owner == owner, db.events.c.action.in_(("save", "undo")))
        .order_by(db.events.c.version)).all()
    history: list[list[str]] = []
    for action, before, _version in rows:
        if action == "save":
            history.append(json.loads(before))
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
    return save_selection(engine, corpus, topic_id=topic_id, cited_ucid=cited_ucid, owner=owner,
                          xpaths=history[-1], base_version=base_version, actor=actor, action="undo")


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
    """Retain or reject a topic candidate (with one of the seed's reasons or a free one)."""
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


def audit_log(engine: Engine, *, limit: int = 200) -> list[dict]:
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.events, db.assessors.c.name, db.topics.c.qid)
            .join(db.assessors, db.assessors.c.id == db.events.c.assessor_id, isouter=True)
            .join(db.topics, db.topics.c.id == db.events.c.topic_id, isouter=True)
            .order_by(db.events.c.id.desc()).limit(limit)).mappings().all()
    return [{**dict(r), "at": r["at"].isoformat()} for r in rows]


