"""``pateval assess`` (serve, user, export, import): the qrels extraction web application."""

from __future__ import annotations

import sys

from .shared import add_command, add_flags, add_group, add_output, examples


def _add_assess(commands) -> None:
    # The web stack is imported by the handlers only (pip install "pateval[assess]").
    sub = add_group(
        commands, "assess", help="the qrels extraction web application (CLEF-IP 2013 Figure 2)",
        dest="assess_command",
        description="Assessors turn search-report citations into passage qrels in a local web application: "
        "`pateval assess serve --demo`, then `pateval assess export --db URL --out DIR`.",
    )
    serve = add_command(sub, "serve", _run_assess_serve, extra="assess", help="start the web application",
                        description="Serve the assessment tool on a corpus store and a built collection "
                        "(or --demo: a synthetic corpus made once in --demo-dir).",
                        epilog=examples("pateval assess serve --demo", "pateval assess serve --store store "
                                        "--collection collection --db sqlite:///assess.db"))
    add_flags(serve, "store", help="corpus store (pateval corpus ingest)")
    add_flags(serve, "collection", help="collection (pateval collection build)")
    add_flags(serve, "db", required=False, help="database: sqlite:///assess.db (default) or postgresql://...")
    serve.add_argument("--demo", action="store_true", help="serve a synthetic demo corpus (made on first use)")
    serve.add_argument("--demo-dir", default="pateval-assess-demo", metavar="DIR",
                       help="where --demo keeps its corpus, collection, database and accounts (default "
                       "./pateval-assess-demo)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.add_argument("--secure-cookies", action="store_true",
                       help="mark the cookies Secure (the tool is reached over HTTPS)")
    serve.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                       help="a reverse proxy whose X-Forwarded-Proto and X-Forwarded-For count (repeatable)")
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name requests may name (Host header; repeatable; *.example.org for its "
                       "subdomains); default: this machine's names when listening on 127.0.0.1 without a proxy, "
                       "else any")
    serve.add_argument("--session-idle", type=float, default=120, metavar="MINUTES",
                       help="a session ends after this long without a request (default 120)")
    serve.add_argument("--session-max", type=float, default=12, metavar="HOURS",
                       help="a session ends this long after the login (default 12)")
    serve.add_argument("--max-failed-logins", type=int, default=10, metavar="N",
                       help="wrong passwords in a row that lock an account (default 10)")
    user = add_command(sub, "user", _run_assess_user, extra="assess", help="manage assessor accounts",
                       description="`pateval assess user add|disable|enable|remove|unlock|reset-password NAME "
                       "--db URL [--admin]`, or `pateval assess user list --db URL`: a password (add, "
                       "reset-password) is read from standard input (first line) or asked for on a terminal.",
                       epilog=examples("pateval assess user add alice --db sqlite:///assess.db --admin",
                                       "pateval assess user list --db sqlite:///assess.db",
                                       "pateval assess user reset-password bob --db sqlite:///assess.db"))
    user.add_argument("action", choices=("add", "disable", "enable", "remove", "unlock", "reset-password", "list"))
    user.add_argument("name", metavar="NAME", nargs="?")
    user.add_argument("--db", metavar="URL", default="sqlite:///assess.db",
                      help="database URL (default sqlite:///assess.db)")
    user.add_argument("--admin", action="store_true", help="may adjudicate")
    export = add_command(sub, "export", _run_assess_export, extra="assess",
                         help="write the qrels of an assessment database",
                         description="Write qrels_PSG.txt (qid docno xpath), qrels_PSG_graded.txt, "
                         "qrels_PSG_docs.txt, qrels_PSG_claims.txt, theta_PSG.txt and topics_PSG.tsv into a new "
                         "directory, in the formats of pateval collection build.",
                         epilog=examples("pateval assess export --db sqlite:///assess.db --out qrels/",
                                         "pateval assess export --db sqlite:///assess.db --out qrels/ --policy union"))
    add_flags(export, "db")
    add_output(export, "--out", metavar="DIR", required=True, help="new output directory")
    export.add_argument("--policy", default="final", metavar="POLICY",
                        help="final (adjudicated, else agreed; default), union, or an assessor's name")
    add_flags(export, "store", "collection")
    load = add_command(sub, "import", _run_assess_import, extra="assess", help="load passage qrels for review",
                       description="Load passage qrels (qid docno xpath) as the judgements of one assessor.",
                       epilog=examples("pateval assess import --db sqlite:///assess.db --qrels "
                                       "collection/qrels_PSG.txt --topics collection/topics_PSG.tsv --as clefip",
                                       "pateval assess import --db postgresql://assess@dbhost/assess --qrels "
                                       "review.txt --as bob --store store --collection collection"))
    add_flags(load, "db")
    load.add_argument("--qrels", metavar="FILE", required=True, help="passage qrels file")
    load.add_argument("--topics", metavar="TSV", help="topics_PSG.tsv defining topics the database lacks")
    load.add_argument("--as", dest="owner", metavar="NAME", required=True, help="assessor account to load them as")
    add_flags(load, "store", "collection")
    pool = add_command(sub, "pool", _run_assess_pool, extra="assess", help="import a pool (or a sample) to judge",
                       description="Import a pool file (pateval pool build) or a sample of one (pateval pool sample "
                       "without --qrels): each topic becomes a queue of documents that assessors grade (0 to "
                       "--max-grade) in the tool, in the pool's order or an adaptive order (mtf: move-to-front, "
                       "mm-ns: the MM-NS bandit) that takes the next document from the judgements made so far.",
                       epilog=examples("pateval assess pool --db sqlite:///assess.db --pool pool.txt",
                                       "pateval assess pool --db sqlite:///assess.db --pool pool.txt "
                                       "--judging-order mtf --name robust-mtf",
                                       "pateval assess pool --db sqlite:///assess.db --pool sample.txt --max-grade 1"))
    add_flags(pool, "db")
    pool.add_argument("--pool", metavar="FILE", required=True, help="pool file, or a sample of one")
    pool.add_argument("--name", metavar="NAME", help="the pool's name in the tool (default: the file's name)")
    pool.add_argument("--judging-order", dest="order", default="pool", metavar="ORDER",
                      help="pool (the file's order; default), mtf (move-to-front) or mm-ns (MM-NS bandit)")
    pool.add_argument("--max-grade", type=int, default=2, metavar="N",
                      help="the highest grade, 1-9 (grades run from 0, not relevant; default 2)")


def _run_assess_serve(*, demo: bool, demo_dir: str, store, collection, db, host: str, port: int,
                      secure_cookies: bool, trusted_proxy: list, session_idle: float, session_max: float,
                      max_failed_logins: int, allowed_host: list) -> None:
    from ..assess import commands
    from ..demo import prepare_assess_demo
    from ..errors import ParameterError

    if demo:
        if store or collection:
            raise ParameterError("--demo makes its own store and collection; leave out --store and --collection")
        made = prepare_assess_demo(demo_dir, url=db, echo=lambda *a, **k: print(*a, file=sys.stderr))
        for name, password in made["accounts"].items():
            print(f"assess demo: log in as {name} with password {password} (also in {demo_dir}/demo-accounts.txt)")
        db, store, collection = made["db"], made["store"], made["collection"]
    elif not store or not collection:
        raise ParameterError("give --store and --collection (or --demo)")
    commands.serve(url=db or "sqlite:///assess.db", store=store, collection=collection, host=host, port=port,
                   secure_cookies=secure_cookies, trusted_proxies=trusted_proxy, session_idle_minutes=session_idle,
                   session_max_hours=session_max, max_failed_logins=max_failed_logins, allowed_hosts=allowed_host)


def _run_assess_user(*, db: str, action: str, name, admin: bool) -> None:
    from ..assess import commands

    commands.user(url=db, action=action, name=name, admin=admin)


def _run_assess_export(*, db: str, out, policy: str, store, collection) -> None:
    from .. import api

    summary = api.assess_export(db, out, policy=policy, store=store, collection=collection)
    print(f"assess export: {summary['topics']} topics, {summary['passages']} passages, {summary['documents']} "
          f"documents, {summary['claim_judgements']} claim judgements -> {out}")
    if summary["unresolved"]:
        print(f"pateval: note: {len(summary['unresolved'])} (topic, document) disagreements without adjudication "
              f"left out (listed in {out}/export.json)", file=sys.stderr)
    if "pool_topics" in summary:
        print(f"assess export: pools: {summary['pool_topics']} topics, {summary['pool_judgements']} graded documents, "
              f"{summary['pool_passages']} passages -> {out}/qrels_pool.txt")
        if summary["pool_unresolved"]:
            print(f"pateval: note: {len(summary['pool_unresolved'])} pooled (topic, document) disagreements without "
                  f"adjudication left out (listed in {out}/export.json)", file=sys.stderr)
        if summary["drawn_unjudged"]:
            print(f"pateval: note: {summary['drawn_unjudged']} drawn documents of sampled pools are not judged yet: "
                  f"written with grade -1 (not drawn) in {out}/sampled_qrels_pool.txt, which lowers their strata's "
                  "inclusion probabilities", file=sys.stderr)


def _run_assess_pool(*, db: str, pool, name, order: str, max_grade: int) -> None:
    from .. import api

    summary = api.assess_pool(db, pool, name=name, order=order, max_grade=max_grade)
    drawn = f"{summary['queued']} of {summary['documents']} documents drawn" if summary["sampled"] else \
        f"{summary['documents']} documents"
    print(f"assess pool: {summary['name']}: {summary['topics']} topics, {drawn} to judge (grades 0-"
          f"{summary['max_grade']}, {summary['order']} order)")


def _run_assess_import(*, db: str, qrels, owner: str, topics, store, collection) -> None:
    from .. import api

    summary = api.assess_import(db, qrels, owner=owner, topics=topics, store=store, collection=collection)
    print(f"assess import: {summary['passages']} passages in {summary['selections']} selections of {owner} "
          f"({summary['topics_created']} topics created)")
