#!/bin/sh
# Same input, same verdict, whatever the machine's load (issue 20, item 5):
# runs `syncscope check` on the corpus and the examples twice, each time
# with one `yes > /dev/null` per core competing for the CPU, and compares
# every kernel's status. Query budgets are Z3 resource limits (rlimit), so
# load changes how long a check takes, not what it answers.
# Usage: sh tests/determinism.sh [path/to/syncscope]
set -u
BIN=${1:-target/release/syncscope}
OUT=${TMPDIR:-/tmp}/syncscope-determinism.$$
mkdir -p "$OUT"
load=""
for _ in $(seq "$(nproc)"); do
    yes > /dev/null &
    load="$load $!"
done
for run in 1 2; do
    "$BIN" check --format json tests/corpus examples > "$OUT/run$run.json"
done
kill $load
python3 - "$OUT/run1.json" "$OUT/run2.json" <<'PY'
import json, sys
runs = []
for path in sys.argv[1:]:
    with open(path) as f:
        d = json.load(f)
    runs.append({(k["file"], k["name"]): k["status"] for k in d["kernels"]})
a, b = runs
diff = [k for k in a if a[k] != b.get(k)] + [k for k in b if k not in a]
unknown = sum(1 for s in a.values() if s == "unknown")
print(f"kernels: {len(a)}; verdicts that differ between the two runs: {len(diff)}; unknown: {unknown}")
for k in diff:
    print("  differs:", k, a.get(k), b.get(k))
sys.exit(1 if diff else 0)
PY
