#!/usr/bin/env python3
"""Scores `syncscope check` on tests/realworld against the expectations
written in the kernels (`// expect-kernel: NAME STATUS`).

Usage: python3 tests/realworld/score.py [path/to/syncscope] [extra flags...]

Prints one line per kernel (expected, got, millis, the first not-verified
reason) and a summary: kernels, matches, not-verified kernels, not-verified
kernels with a not-verified finding naming a local header's identifier (any
status), total millis (the sum of the kernels' `millis`).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/syncscope"
extra = sys.argv[2:]

expected = {}
header_names = set()
for dirpath, _, files in os.walk(ROOT):
    for f in sorted(files):
        path = os.path.join(dirpath, f)
        if f.endswith(".cu"):
            for line in open(path):
                m = re.search(r"//\s*expect-kernel:\s*(\w+)\s+([\w-]+)", line)
                if m:
                    expected[(os.path.relpath(path, ROOT), m.group(1))] = m.group(2)
        elif f.endswith((".cuh", ".h")):
            text = open(path).read()
            for m in re.finditer(r"#define\s+(\w+)", text):
                header_names.add(m.group(1))
            for m in re.finditer(r"(?:constexpr|const)\s+[\w:]+\s+(\w+)\s*=", text):
                header_names.add(m.group(1))
            for m in re.finditer(r"__device__[^(]*?\b(\w+)\s*\(", text):
                header_names.add(m.group(1))
            for m in re.finditer(r"\b(\w+)\s*=\s*\d+\s*[,}]", text):
                header_names.add(m.group(1))

projects = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)))
out = subprocess.run(
    [binary, "check", "--format", "json", *extra, *[os.path.join(ROOT, p) for p in projects]],
    capture_output=True,
    text=True,
)
report = json.loads(out.stdout)
reasons = {}
header_reason = set()
for f in report["findings"]:
    if f["kind"] == "not-verified" and f.get("kernel"):
        key = (os.path.relpath(f["file"], ROOT), f["kernel"])
        reasons.setdefault(key, f["message"])
        if any(re.search(r"\b%s\b" % re.escape(n), f["message"]) for n in header_names):
            header_reason.add(key)

matches = not_verified = header_nv = 0
total_ms = 0
rows = []
for k in report["kernels"]:
    key = (os.path.relpath(k["file"], ROOT), k["name"])
    want = expected.get(key, "?")
    got = k["status"]
    total_ms += k["millis"]
    matches += want == got
    reason = reasons.get(key, "")
    if got == "not-verified":
        not_verified += 1
    # A kernel with a not-verified finding naming a header's identifier (a
    # macro, constant or function the tool could not see), whatever its status.
    header_nv += key in header_reason
    rows.append((key[0], key[1], want, got, k["millis"], reason[:100]))
for r in rows:
    flag = "  " if r[2] == r[3] else "!!"
    print(f"{flag} {r[0]:32} {r[1]:26} expected {r[2]:13} got {r[3]:13} {r[4]:6} ms  {r[5]}")
missing = set(expected) - {(r[0], r[1]) for r in rows}
for m in sorted(missing):
    print(f"!! {m[0]:32} {m[1]:26} expected {expected[m]:13} not reported")
print(
    f"kernels {len(rows)} (expected {len(expected)}), matching {matches}, "
    f"not-verified {not_verified}, kernels with a not-verified finding naming a header identifier {header_nv}, "
    f"total {total_ms} ms"
)
