"""Passwords and the limits on guessing them: scrypt at OWASP's parameters, stored with them
and upgraded at the next login; the password policy (length, common passwords); attempts
counted before the password is checked, so that bursts of parallel guesses on the login and
the ``/password`` form check no more than the limits allow; lock-outs that end by themselves,
longer each time; one answer whether or not the account exists."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import hashlib
import re
import signal

import httpx
import pytest
from sqlalchemy import select, text, update

from pateval.assess import db, service
from pateval.errors import ParameterError

from .conftest import Server, login
from .test_postgresql import postgresql, postgresql_url  # noqa: F401 - fixtures of the test at the end

STRONG = "correct horse battery"  # 21 characters, not a common password


def _stored(engine, name):
    with engine.connect() as connection:
        return connection.execute(select(db.assessors).where(db.assessors.c.name == name)).mappings().one()


def _count_scrypt(monkeypatch) -> list[int]:
    """Counts the scrypt computations (every password check, real or dummy, is one)."""
    calls: list[int] = []
    real = service._scrypt

    def counted(password, salt, n, r, p):
        calls.append(n)
        return real(password, salt, n, r, p)

    monkeypatch.setattr(service, "_scrypt", counted)
    return calls


# ---- hashes -------------------------------------------------------------------------------

def test_new_hashes_use_owasps_scrypt_parameters_and_record_them(monkeypatch):
    """Without the tests' knob a hash is scrypt N=2^17, r=8, p=1 (OWASP Password Storage Cheat
    Sheet), written ``scrypt$N$r$p$salt$hash``; the digest is hashlib's scrypt of the password
    with that salt and those parameters, computed here independently."""
    monkeypatch.delenv(service.SCRYPT_COST_VARIABLE, raising=False)
    assert service.scrypt_parameters() == (2 ** 17, 8, 1)
    stored = service.hash_password(STRONG)
    kind, n, r, p, salt, digest = stored.split("$")
    assert (kind, n, r, p) == ("scrypt", "131072", "8", "1") and len(salt) == 32 and len(digest) == 64
    reference = hashlib.scrypt(STRONG.encode(), salt=bytes.fromhex(salt), n=2 ** 17, r=8, p=1, dklen=32,
                               maxmem=2 ** 28)
    assert reference.hex() == digest
    assert service.verify_password(STRONG, stored) and not service.verify_password(STRONG + "!", stored)
    assert not service.needs_new_hash(stored)


def test_the_tests_knob_lowers_the_cost_and_refuses_nonsense(monkeypatch):
    monkeypatch.setenv(service.SCRYPT_COST_VARIABLE, "10")
    assert service.hash_password(STRONG).startswith("scrypt$1024$8$1$")
    for wrong in ("3", "23", "ten", ""):
        monkeypatch.setenv(service.SCRYPT_COST_VARIABLE, wrong)
        with pytest.raises(ParameterError, match=f"^{service.SCRYPT_COST_VARIABLE}="):
            service.scrypt_parameters()


def test_old_and_weaker_hashes_are_verified_then_upgraded_at_the_next_login(database, monkeypatch):
    """A schema-3 hash (``scrypt$salt$hash`` at N=2^14) and a hash of lower cost still open the
    account; the successful login stores a new hash at today's parameters. A wrong password
    changes nothing, and a stored form that is not a hash matches no password."""
    engine = database["engine"]
    salt = bytes(range(16))
    legacy = f"scrypt${salt.hex()}${hashlib.scrypt(STRONG.encode(), salt=salt, n=2 ** 14, r=8, p=1, dklen=32).hex()}"
    monkeypatch.setenv(service.SCRYPT_COST_VARIABLE, "4")
    weak = service.hash_password(STRONG)
    monkeypatch.setenv(service.SCRYPT_COST_VARIABLE, "10")
    for stored in (legacy, weak):
        assert service.needs_new_hash(stored)
        with engine.begin() as connection:
            connection.execute(update(db.assessors).where(db.assessors.c.name == "bob").values(password_hash=stored))
        assert service.authenticate(engine, "bob", "wrong password here") is None
        assert _stored(engine, "bob")["password_hash"] == stored
        assert service.authenticate(engine, "bob", STRONG) is not None
        upgraded = _stored(engine, "bob")["password_hash"]
        assert upgraded.startswith("scrypt$1024$8$1$") and not service.needs_new_hash(upgraded)
        assert service.authenticate(engine, "bob", STRONG) is not None
    for nonsense in ("!", "scrypt$zz$zz", "scrypt$3$8$1$00$00", "bcrypt$x"):
        assert not service.verify_password(STRONG, nonsense)


# ---- the password policy -----------------------------------------------------------------

@pytest.mark.parametrize(("password", "message"), [
    ("short-pass1", "a password needs at least 12 characters"),
    ("x" * 1025, "a password has at most 1024 characters"),
    ("qwertyuiop123", "this password is among the most common ones"),  # in the list as it is
    ("Password2024!", "this password is among the most common ones"),  # "password" with digits and a sign
    ("!!sunshine!!", "this password is among the most common ones"),
    ("aaaaaaaaaaaaaa", "a password may not be one character repeated nor contain the account's name"),
    ("erin-the-great", "a password may not be one character repeated nor contain the account's name"),
])
def test_new_passwords_follow_the_policy(password, message):
    with pytest.raises(service.AssessError, match=f"^{re.escape(message)}"):
        service.check_new_password(password, "erin")


def test_the_common_password_list_is_shipped_and_good_passwords_pass():
    common = service.common_passwords()
    assert len(common) == 19640 and {"123456", "password", "qwertyuiop", "1q2w3e4r5t6y"} <= common
    for good in (STRONG, "Tr0ub4dor&3-plus", "x7#kP2!qLm9@"):
        assert service.check_new_password(good, "erin") == good


# ---- attempts counted before the check ---------------------------------------------------

def test_twenty_parallel_guesses_check_at_most_the_lockout_limit(database, monkeypatch):
    """Each attempt is committed before its password is checked: of 20 parallel wrong guesses
    with the lock-out at 5, exactly 5 are checked against bob's hash (the others do the same
    work on a dummy hash), and the account is locked once."""
    engine = database["engine"]
    checked: list[str] = []
    real = service.verify_password
    monkeypatch.setattr(service, "verify_password", lambda password, stored: checked.append(password) or
                        real(password, stored))
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda i: service.authenticate(engine, "bob", f"wrong-guess-{i}", max_failures=5,
                                                               address=f"10.0.0.{i}"), range(20)))
    assert answers == [None] * 20 and len(checked) == 5
    row = _stored(engine, "bob")
    assert row["failed_logins"] == 5 and row["lockouts"] == 1 and service.locked_until(row) is not None
    locks = [e for e in service.audit_log(engine) if e["action"] == "lock-assessor"]
    assert len(locks) == 1


def test_unknown_locked_and_wrong_cost_the_same_work(database, workspace, monkeypatch):
    """The answer does not tell whether an account exists: one scrypt computation at today's
    parameters for an unknown name, a disabled account, a wrong password and a locked account."""
    engine = database["engine"]
    calls = _count_scrypt(monkeypatch)
    assert service.authenticate(engine, "nobody-here", "wrong-password-1") is None
    assert service.authenticate(engine, "bob", "wrong-password-1", max_failures=1) is None  # locks bob
    assert service.authenticate(engine, "bob", workspace["accounts"]["bob"], max_failures=1) is None  # locked
    service.manage_assessor(engine, "alice", "disable")
    assert service.authenticate(engine, "alice", workspace["accounts"]["alice"]) is None
    assert calls == [2 ** 10] * 4


def test_lockouts_end_by_themselves_and_grow_when_repeated(database, workspace):
    """15 minutes after the first lock-out, 1 hour after the second in a row, then 4 and 24
    hours; a successful login starts the count again, and so does an administrator's unlock."""
    engine = database["engine"]
    password = workspace["accounts"]["bob"]
    assert [service.lockout_minutes(k) for k in range(1, 7)] == [15, 60, 240, 1440, 1440, 1440]

    def lock_out():
        for i in range(3):
            assert service.authenticate(engine, "bob", f"wrong-{i}", max_failures=3) is None

    def back(minutes):
        with engine.begin() as connection:
            connection.execute(update(db.assessors).where(db.assessors.c.name == "bob").values(
                locked_at=db.now() - dt.timedelta(minutes=minutes)))

    lock_out()
    assert service.authenticate(engine, "bob", password, max_failures=3) is None
    back(14)
    assert service.authenticate(engine, "bob", password, max_failures=3) is None
    back(16)
    lock_out()  # the second in a row (no success between): one hour
    assert _stored(engine, "bob")["lockouts"] == 2
    back(59)
    assert service.authenticate(engine, "bob", password, max_failures=3) is None
    back(61)
    lock_out()
    back(239)
    assert service.authenticate(engine, "bob", password, max_failures=3) is None
    back(241)
    assert service.authenticate(engine, "bob", password, max_failures=3) is not None
    row = _stored(engine, "bob")
    assert (row["failed_logins"], row["lockouts"], row["locked_at"]) == (0, 0, None)
    lock_out()
    assert _stored(engine, "bob")["lockouts"] == 1  # 15 minutes again
    service.manage_assessor(engine, "bob", "unlock")
    assert service.authenticate(engine, "bob", password, max_failures=3) is not None


def test_a_schema_3_database_gets_lockout_counts(tmp_path):
    """Schema 4 adds the lock-out count: an account locked under schema 3 has had one, so its
    lock ends 15 minutes after it began; its old hash still opens it and is upgraded."""
    from sqlalchemy import create_engine

    path = tmp_path / "three.db"
    salt = bytes(16)
    legacy = f"scrypt${salt.hex()}${hashlib.scrypt(STRONG.encode(), salt=salt, n=2 ** 14, r=8, p=1, dklen=32).hex()}"
    old = create_engine(f"sqlite:///{path}")
    with old.begin() as connection:
        connection.execute(text("CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)"))
        connection.execute(text("INSERT INTO meta VALUES ('schema_version', '3')"))
        connection.execute(text(
            "CREATE TABLE assessors (id INTEGER PRIMARY KEY, name VARCHAR(64) NOT NULL UNIQUE, password_hash "
            "VARCHAR(256) NOT NULL, is_admin BOOLEAN NOT NULL, created_at DATETIME NOT NULL, status VARCHAR(16) "
            "NOT NULL DEFAULT 'active', failed_logins INTEGER NOT NULL DEFAULT 0, locked_at DATETIME)"))
        long_ago = (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=20)).replace(tzinfo=None)
        connection.execute(text("INSERT INTO assessors VALUES (1, 'carol', :h, 0, '2026-01-01', 'active', 10, :t), "
                                "(2, 'dave', :h, 0, '2026-01-01', 'active', 0, NULL)"), {"h": legacy, "t": long_ago})
    old.dispose()
    engine = db.open_database(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == "5"
        assert connection.execute(text("SELECT name, lockouts FROM assessors ORDER BY id")).all() == \
            [("carol", 1), ("dave", 0)]
    assert service.authenticate(engine, "carol", STRONG) is not None  # 20 minutes > 15: ended by itself
    assert _stored(engine, "carol")["password_hash"].startswith("scrypt$1024$")
    engine.dispose()


# ---- against the served tool --------------------------------------------------------------

def _form_token(client, page="/login"):
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


@pytest.fixture
def strict(database, workspace, tmp_path):
    """The served tool with the lock-out at 5, trusting 127.0.0.1 as its proxy (X-Forwarded-For)."""
    running = Server(database["url"], workspace, tmp_path / "strict.log",
                     options={"max_failed_logins": 5, "trusted_proxies": ["127.0.0.1"]})
    yield running
    running.kill(signal.SIGTERM)


def _burst(base, requests_):
    """Send the requests (each a function of a client) from 20 threads at once; their answers."""
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        return list(pool.map(lambda send: send(), requests_))


def test_bursts_of_logins_hold_both_limits(strict, database, workspace):
    """20 parallel wrong passwords on bob (lock-out at 5): all answered alike, 5 counted, bob
    locked; 40 parallel logins from one address (limit 30): exactly 30 are checked, 10 refused
    with 429 before any check."""
    def guess(i, name="bob", address=None):
        def send():
            with httpx.Client(base_url=strict.base) as client:
                token = _form_token(client)
                return client.post("/login", data={"csrf": token, "name": name, "password": f"wrong-{i}"},
                                   headers={"X-Forwarded-For": address or f"10.1.0.{i}"})
        return send

    answers = _burst(strict.base, [guess(i) for i in range(20)])
    assert [a.status_code for a in answers] == [401] * 20
    assert len({re.search(r'class="error"[^>]*>([^<]+)<', a.text).group(1) for a in answers}) == 1
    row = _stored(database["engine"], "bob")
    assert (row["failed_logins"], row["lockouts"]) == (5, 1)
    spray = _burst(strict.base, [guess(i, f"nobody{i}", "10.2.0.1") for i in range(40)])
    assert sorted(a.status_code for a in spray) == [401] * 30 + [429] * 10
    blocked = [e for e in service.audit_log(database["engine"]) if e["action"] == "block-address"]
    assert [e["detail"] for e in blocked] == ['{"address": "10.2.0.1", "failed_logins": 30}']


def test_the_password_form_is_limited_like_the_login(strict, database, workspace):
    """20 parallel guesses of bob's current password on /password (lock-out at 5): 5 are
    checked, then bob is locked and even his right password is refused there; a new password
    that breaks the policy is refused before any check (and not counted)."""
    with httpx.Client(base_url=strict.base) as bob:
        login(bob, strict.base, "bob", workspace["accounts"]["bob"])
        token = _form_token(bob, "/password")
        weak = bob.post("/password", data={"csrf": token, "old": "x", "new": "password1234",
                                           "repeat": "password1234"}, headers={"X-Forwarded-For": "10.3.0.1"})
        assert weak.status_code == 400 and "among the most common" in weak.text
        assert _stored(database["engine"], "bob")["failed_logins"] == 0

        def guess(i):
            return lambda: bob.post("/password", data={"csrf": token, "old": f"guess-{i}", "new": STRONG,
                                                       "repeat": STRONG}, headers={"X-Forwarded-For": "10.3.0.2"})

        answers = _burst(strict.base, [guess(i) for i in range(20)])
        assert [a.status_code for a in answers] == [403] * 20
        row = _stored(database["engine"], "bob")
        assert (row["failed_logins"], row["lockouts"]) == (5, 1)
        right = bob.post("/password", data={"csrf": token, "old": workspace["accounts"]["bob"], "new": STRONG,
                                            "repeat": STRONG}, headers={"X-Forwarded-For": "10.3.0.3"})
        assert right.status_code == 403
        # the address limit counts /password too: 10.3.0.2 has 20 of its 30
        more = [bob.post("/password", data={"csrf": token, "old": f"more-{i}", "new": STRONG, "repeat": STRONG},
                         headers={"X-Forwarded-For": "10.3.0.2"}).status_code for i in range(11)]
        assert more == [403] * 10 + [429]


def test_parallel_guesses_on_postgresql_check_at_most_the_limit(request, monkeypatch):
    """The same count before the check on PostgreSQL (the account's row locked FOR UPDATE)."""
    engine = db.open_database(request.getfixturevalue("postgresql_url"))
    service.add_assessor(engine, "pg-burst", STRONG)
    checked: list[str] = []
    real = service.verify_password
    monkeypatch.setattr(service, "verify_password", lambda password, stored: checked.append(password) or
                        real(password, stored))
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda i: service.authenticate(engine, "pg-burst", f"wrong-guess-{i}",
                                                               max_failures=5), range(20)))
    assert answers == [None] * 20 and len(checked) == 5
    row = _stored(engine, "pg-burst")
    assert (row["failed_logins"], row["lockouts"]) == (5, 1)
    engine.dispose()
