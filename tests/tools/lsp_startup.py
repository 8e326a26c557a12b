#!/usr/bin/env python3
"""Language server start-up: the time from starting `syncscope lsp` to its
answer to `initialize`, and the server's peak memory, over several runs.

Usage: python3 tests/tools/lsp_startup.py [path/to/syncscope] [RUNS]
Prints each run and the median (docs/benchmarks.md)."""
import json, resource, statistics, subprocess, sys, time

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/syncscope"
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def receive(p):
    length = None
    while True:
        line = p.stdout.readline()
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


times, peaks = [], []
for _ in range(runs):
    start = time.perf_counter()
    p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    while receive(p).get("id") != 1:
        pass
    times.append((time.perf_counter() - start) * 1000)
    send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    while receive(p).get("id") != 2:
        pass
    send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
    p.wait()
    peaks.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
print("initialize answered after (ms):", " ".join("%.1f" % t for t in times))
print("median %.1f ms, peak RSS of the server %.1f MB" % (statistics.median(times), max(peaks)))
