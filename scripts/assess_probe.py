"""Probe a served assessment tool as the issue 34 audit did, and print the server's memory.

Usage::

    python scripts/assess_probe.py [--patents N]

Makes a small demo workspace in a temporary directory, serves it with ``pateval assess
serve`` on 127.0.0.1 and sends, while reading the server's resident memory (VmRSS) before
and after each round:

- five concurrent 200 MB bodies to ``POST /login``, announced by Content-Length;
- five concurrent 200 MB bodies to ``POST /login``, streamed (chunked, no length);
- after logging in, five 50 MB JSON bodies to the selection API (announced and streamed);
- a path id of 5,000 digits, JSON nested 100,000 deep, a JSON integer of 5,000 digits;

then ``pateval assess import`` of a 200 MiB xz bomb (a few KB), with its peak memory.
Each line gives the status codes, the time taken and the memory. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import lzma
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def send(port: int, head: bytes, body_chunks=(), chunked: bool = False) -> int:
    """Send a request (its body streamed chunk by chunk); the status code of the answer, or
    0 when the server closed the connection without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.sendall(head)
        try:
            for chunk in body_chunks:
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            if chunked:
                connection.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # refused before the whole body was sent: the server closed the connection
        try:
            answer = connection.recv(4096)
        except OSError:
            return 0
        return int(answer.split()[1]) if answer.startswith(b"HTTP/") else 0


def body(total: int, chunk: int = 1 << 20):
    piece = b"x" * chunk
    for _ in range(total // chunk):
        yield piece


def round_of(name: str, pid: int, jobs) -> None:
    before = rss_mb(pid)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        codes = list(pool.map(lambda job: job(), jobs))
    took = time.monotonic() - started
    print(f"{name:<48} statuses {sorted(codes)}  {took:6.2f} s  server RSS {before:6.1f} -> {rss_mb(pid):6.1f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patents", type=int, default=300)
    args = parser.parse_args()
    import httpx

    from pateval.demo import prepare_assess_demo

    root = Path(tempfile.mkdtemp(prefix="assess-probe-"))
    demo = prepare_assess_demo(root, n_patents=args.patents, seed=0, echo=lambda *a, **k: None)
    port = free_port()
    log = open(root / "server.log", "wb")  # noqa: SIM115 - the server's log while it runs
    server = subprocess.Popen([sys.executable, "-m", "pateval.cli", "assess", "serve", "--db", demo["db"], "--store",
                               demo["store"], "--collection", demo["collection"], "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        pid = server.pid
        print(f"server pid {pid}, RSS at start {rss_mb(pid):.1f} MB")
        login = (b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n")
        announced = login + b"Content-Length: 200000000\r\n\r\n"
        round_of("5 x 200 MB to /login, announced", pid, [lambda: send(port, announced, body(200 << 20))] * 5)
        streamed = login + b"Transfer-Encoding: chunked\r\n\r\n"
        round_of("5 x 200 MB to /login, streamed", pid, [lambda: send(port, streamed, body(200 << 20), True)] * 5)

        client = httpx.Client(base_url=f"http://127.0.0.1:{port}")
        page = client.get("/login")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        name, password = next(iter(demo["accounts"].items()))
        assert client.post("/login", data={"csrf": token, "name": name, "password": password}).status_code == 303
        key = client.get("/api/sources").json()[0]["patent_key"]
        source = client.get(f"/api/sources/{key}").json()
        csrf = re.search(r'data-csrf="([^"]+)"', client.get(f"/source/{key}").text).group(1)
        topic, ucid = source["topics"][0]["id"], source["citations"][0]["cited_ucid"]
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items()).encode()
        path = f"/api/topics/{topic}/citations/{ucid}/selection".encode()
        put = (b"PUT " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-CSRF-Token: "
               + csrf.encode() + b"\r\nCookie: " + cookie + b"\r\n")
        round_of("5 x 50 MB JSON after login, announced", pid,
                 [lambda: send(port, put + b"Content-Length: 52428800\r\n\r\n", body(50 << 20))] * 5)
        round_of("5 x 50 MB JSON after login, streamed", pid,
                 [lambda: send(port, put + b"Transfer-Encoding: chunked\r\n\r\n", body(50 << 20), True)] * 5)
        headers = {"X-CSRF-Token": csrf}
        probes = {
            "path id of 5,000 digits": client.get(f"/api/topics/{'9' * 5000}/judgements"),
            "JSON nested 100,000 deep": client.put(path.decode(), headers=headers,
                                                   content=b"[" * 100_000 + b"]" * 100_000),
            "JSON integer of 5,000 digits": client.put(path.decode(), headers=headers,
                                                       content=b'{"version": ' + b"9" * 5000 + b"}"),
            "500 KB echoed action": client.post(f"/api/assessors/{name}", headers=headers,
                                                json={"action": "x" * 500_000}),
        }
        for what, answer in probes.items():
            print(f"{what:<48} {answer.status_code}  {len(answer.content)} bytes answered  "
                  f"referrer-policy={answer.headers.get('referrer-policy')}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    text = (root / "server.log").read_text()
    print(f"server log: {len(text.splitlines())} lines, {text.count('Traceback')} tracebacks")

    bomb = root / "bomb.xz"
    packer = lzma.LZMACompressor()
    with open(bomb, "wb") as handle:
        for _ in range(200):
            handle.write(packer.compress(bytes(1 << 20)))
        handle.write(packer.flush())
    small = root / "small.xz"
    small.write_bytes(lzma.compress(b"PSG-1 EP-0000000-A1 /patent-document/abstract/p[1]\n"))
    for what, qrels in (("a 200 MiB xz bomb of", bomb), ("a one-line xz qrels of", small)):
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", _MEASURED, "assess", "import", "--db", demo["db"], "--qrels",
                               str(qrels), "--as", name], capture_output=True, text=True)
        print(f"import of {what} {qrels.stat().st_size / 1024:.1f} KB: exit {done.returncode} in "
              f"{time.monotonic() - started:.2f} s, {done.stdout.strip()}")
        print(f"  {done.stderr.strip()}")
    shutil.rmtree(root, ignore_errors=True)
    return 0


# pateval's command line in a process that prints its own peak resident memory at the end
_MEASURED = ("import resource, sys; from pateval.cli import main; status = main(sys.argv[1:]); "
             "print(f'peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB'); sys.exit(status)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
