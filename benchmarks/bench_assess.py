"""Benchmark: the assessment tool (pateval assess) on a synthetic corpus.

There is no public peer: the CLEF-IP organisers' 2012 tool was in-house and never
released. What an assessor waits for is measured instead, against the one comparable job
pateval itself does: writing the same qrels files from the store (``pateval collection
build``) against writing them from the assessment database (``pateval assess export``,
after the collection's passage qrels were imported as one assessor's judgements).

Printed (wall-clock seconds; the machine may be shared):

- collection build (store -> collection, the reference) and assess export (database ->
  the same qrels_PSG / graded / topics files, checked byte for byte), and their ratio;
- import of the collection's passage qrels (one transaction per selection);
- the topic-source list (first and second request), a source page (median, max), a save
  (median of sequential saves), over HTTP against the real server on 127.0.0.1.

Run: ``python benchmarks/bench_assess.py [--patents 3000] [--saves 100]``.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patents", type=int, default=3000)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()

    import httpx

    from pateval import api
    from pateval.assess import db, service

    root = Path(tempfile.mkdtemp(prefix="bench-assess-"))
    api.generate_corpus(root / "corpus", n_patents=args.patents, seed=args.seed)
    api.ingest_corpus(root / "corpus", root / "store")
    started = time.perf_counter()
    api.build_collection(root / "store", root / "collection")
    build_seconds = time.perf_counter() - started

    url = f"sqlite:///{root / 'assess.db'}"
    engine = db.open_database(url)
    service.add_assessor(engine, "clefip", "benchmark-password")
    service.add_assessor(engine, "alice", "benchmark-password", is_admin=True)
    started = time.perf_counter()
    imported = api.assess_import(url, root / "collection" / "qrels_PSG.txt", owner="clefip",
                                 topics=root / "collection" / "topics_PSG.tsv", store=root / "store",
                                 collection=root / "collection")
    import_seconds = time.perf_counter() - started
    started = time.perf_counter()
    api.assess_export(url, root / "export", store=root / "store", collection=root / "collection")
    export_seconds = time.perf_counter() - started
    for name in ("qrels_PSG.txt", "qrels_PSG_graded.txt", "topics_PSG.tsv", "topics_PSG.txt"):
        if not filecmp.cmp(root / "export" / name, root / "collection" / name, shallow=False):
            sys.exit(f"export differs from collection build in {name}")

    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "pateval.cli", "assess", "serve", "--db", url, "--store",
                               str(root / "store"), "--collection", str(root / "collection"), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(f"{base}/login", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        client = httpx.Client(base_url=base, timeout=120)
        token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
        client.post("/login", data={"csrf": token, "name": "alice", "password": "benchmark-password"})
        timings = {}
        for label in ("sources page (first)", "sources page (again)"):
            started = time.perf_counter()
            listing = client.get("/")
            timings[label] = time.perf_counter() - started
        keys = re.findall(r'href="/source/([^"]+)"', listing.text)[:30]
        pages, target = [], None
        for key in keys:
            started = time.perf_counter()
            page = client.get(f"/source/{key}")
            pages.append(time.perf_counter() - started)
            if target is None and 'id="save" class="primary" >' in page.text:  # a citation in the corpus
                target = [re.search(rf'{name}="([^"]+)"', page.text).group(1)
                          for name in ("data-topic", "data-cited", "data-csrf")]
        topic_id, cited, token = target
        passages = [p["xpath"] for p in client.get(f"/api/documents/{cited}").json()["passages"] if not p["is_heading"]]
        selection = f"/api/topics/{topic_id}/citations/{cited}/selection"
        version = client.get(selection).json()["version"]
        saves = []
        for i in range(args.saves):
            started = time.perf_counter()
            version = client.put(selection, json={"xpaths": passages[i % len(passages):i % len(passages) + 3],
                                                  "version": version},
                                 headers={"X-CSRF-Token": token}).json()["version"]
            saves.append(time.perf_counter() - started)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    print(f"corpus: {args.patents} patents, {len(keys)}+ topic sources, {imported['passages']} passages in "
          f"{imported['selections']} selections")
    print(f"collection build (reference)  {build_seconds:8.2f} s")
    print(f"assess export (same files)    {export_seconds:8.2f} s   ratio export/build "
          f"{export_seconds / build_seconds:.2f}")
    print(f"assess import                 {import_seconds:8.2f} s   "
          f"({import_seconds / imported['selections'] * 1000:.1f} ms "
          "per selection)")
    for label, seconds in timings.items():
        print(f"{label:<30}{seconds:8.3f} s")
    print(f"source page                   median {statistics.median(pages) * 1000:.0f} ms, max {max(pages) * 1000:.0f} "
          f"ms")
    print(f"save (sequential)             median {statistics.median(saves) * 1000:.1f} ms over {len(saves)}")


if __name__ == "__main__":
    main()
