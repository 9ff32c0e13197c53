"""``pateval assess`` (serve, user, export, import): the qrels extraction web application."""

from __future__ import annotations

import sys

from .shared import add_group, add_output, examples


def _add_assess(commands) -> None:
    # The web stack is imported by the handlers only (pip install "pateval[assess]").
    sub = add_group(
        commands, "assess", help="the qrels extraction web application (CLEF-IP 2013 Figure 2)",
        dest="assess_command",
        description="Assessors turn search-report citations into passage qrels in a local web application: "
        "`pateval assess serve --demo`, then `pateval assess export --db URL --out DIR`.",
    )
    serve = sub.add_parser("serve", help="start the web application",
                           description="Serve the assessment tool on a corpus store and a built collection "
                           "(or --demo: a synthetic corpus made once in --demo-dir).")
    serve.add_argument("--store", metavar="STORE", help="corpus store (pateval corpus ingest)")
    serve.add_argument("--collection", metavar="DIR", help="collection (pateval collection build)")
    serve.add_argument("--db", metavar="URL", help="database: sqlite:///assess.db (default) or postgresql://...")
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
    serve.add_argument("--session-idle", type=float, default=120, metavar="MINUTES",
                       help="a session ends after this long without a request (default 120)")
    serve.add_argument("--session-max", type=float, default=12, metavar="HOURS",
                       help="a session ends this long after the login (default 12)")
    serve.add_argument("--max-failed-logins", type=int, default=10, metavar="N",
                       help="wrong passwords in a row that lock an account (default 10)")
    serve.epilog = examples("pateval assess serve --demo",
                            "pateval assess serve --store store --collection collection --db sqlite:///assess.db")
    serve.set_defaults(run=_run_assess_serve)
    user = sub.add_parser("user", help="manage assessor accounts",
                          description="`pateval assess user add|disable|enable|remove|unlock|reset-password NAME "
                          "--db URL [--admin]`, or `pateval assess user list --db URL`: a password (add, "
                          "reset-password) is read from standard input (first line) or asked for on a terminal.")
    user.add_argument("action", choices=("add", "disable", "enable", "remove", "unlock", "reset-password", "list"))
    user.add_argument("name", metavar="NAME", nargs="?")
    user.add_argument("--db", metavar="URL", default="sqlite:///assess.db",
                      help="database URL (default sqlite:///assess.db)")
    user.add_argument("--admin", action="store_true", help="may adjudicate")
    user.epilog = examples("pateval assess user add alice --db sqlite:///assess.db --admin",
                           "pateval assess user list --db sqlite:///assess.db",
                           "pateval assess user reset-password bob --db sqlite:///assess.db")
    user.set_defaults(run=_run_assess_user)
    export = sub.add_parser("export", help="write the qrels of an assessment database",
                            description="Write qrels_PSG.txt (qid docno xpath), qrels_PSG_graded.txt, "
                            "qrels_PSG_docs.txt, qrels_PSG_claims.txt, theta_PSG.txt and topics_PSG.tsv into a new "
                            "directory, in the formats of pateval collection build.")
    export.add_argument("--db", metavar="URL", required=True, help="database URL")
    add_output(export, "--out", metavar="DIR", required=True, help="new output directory")
    export.add_argument("--policy", default="final", metavar="POLICY",
                        help="final (adjudicated, else agreed; default), union, or an assessor's name")
    export.add_argument("--store", metavar="STORE", help="corpus store (default: the one the server used)")
    export.add_argument("--collection", metavar="DIR", help="collection (default: the one the server used)")
    export.epilog = examples("pateval assess export --db sqlite:///assess.db --out qrels/",
                             "pateval assess export --db sqlite:///assess.db --out qrels/ --policy union")
    export.set_defaults(run=_run_assess_export)
    load = sub.add_parser("import", help="load passage qrels for review",
                          description="Load passage qrels (qid docno xpath) as the judgements of one assessor.")
    load.add_argument("--db", metavar="URL", required=True, help="database URL")
    load.add_argument("--qrels", metavar="FILE", required=True, help="passage qrels file")
    load.add_argument("--topics", metavar="TSV", help="topics_PSG.tsv defining topics the database lacks")
    load.add_argument("--as", dest="owner", metavar="NAME", required=True, help="assessor account to load them as")
    load.add_argument("--store", metavar="STORE", help="corpus store (default: the one the server used)")
    load.add_argument("--collection", metavar="DIR", help="collection (default: the one the server used)")
    load.epilog = examples("pateval assess import --db sqlite:///assess.db --qrels collection/qrels_PSG.txt --topics "
                           "collection/topics_PSG.tsv --as clefip",
                           "pateval assess import --db postgresql://assess@dbhost/assess --qrels review.txt --as bob "
                           "--store store --collection collection")
    load.set_defaults(run=_run_assess_import)


def _run_assess_serve(args) -> int:
    from ..assess import commands
    from ..demo import prepare_assess_demo
    from ..errors import ParameterError

    if args.demo:
        if args.store or args.collection:
            raise ParameterError("--demo makes its own store and collection; leave out --store and --collection")
        demo = prepare_assess_demo(args.demo_dir, url=args.db, echo=lambda *a, **k: print(*a, file=sys.stderr))
        for name, password in demo["accounts"].items():
            print(f"assess demo: log in as {name} with password {password} (also in {args.demo_dir}/demo-accounts.txt)")
        url, store, collection = demo["db"], demo["store"], demo["collection"]
    else:
        if not args.store or not args.collection:
            raise ParameterError("give --store and --collection (or --demo)")
        url, store, collection = args.db or "sqlite:///assess.db", args.store, args.collection
    commands.serve(url=url, store=store, collection=collection, host=args.host, port=args.port,
                   secure_cookies=args.secure_cookies, trusted_proxies=args.trusted_proxy,
                   session_idle_minutes=args.session_idle, session_max_hours=args.session_max,
                   max_failed_logins=args.max_failed_logins)
    return 0


def _run_assess_user(args) -> int:
    from ..assess import commands

    commands.user(url=args.db, action=args.action, name=args.name, admin=args.admin)
    return 0


def _run_assess_export(args) -> int:
    from .. import api

    summary = api.assess_export(args.db, args.out, policy=args.policy, store=args.store, collection=args.collection)
    print(f"assess export: {summary['topics']} topics, {summary['passages']} passages, {summary['documents']} "
          f"documents, {summary['claim_judgements']} claim judgements -> {args.out}")
    if summary["unresolved"]:
        print(f"pateval: note: {len(summary['unresolved'])} (topic, document) disagreements without adjudication "
              f"left out (listed in {args.out}/export.json)", file=sys.stderr)
    return 0


def _run_assess_import(args) -> int:
    from .. import api

    summary = api.assess_import(args.db, args.qrels, owner=args.owner, topics=args.topics, store=args.store,
                                collection=args.collection)
    print(f"assess import: {summary['passages']} passages in {summary['selections']} selections of {args.owner} "
          f"({summary['topics_created']} topics created)")
    return 0
