#!/usr/bin/env bash
# Same input, same verdict: checks the whole corpus and
# the examples twice with the default solver limits while LOAD busy
# processes compete for the CPU, and compares every kernel's status and every
# finding (kind, file, line). A difference means a verdict depends on timing.
#
#   bash tests/determinism.sh            # debug CLI, 2 busy processes
#   SYNCSCOPE=target/release/syncscope LOAD=4 bash tests/determinism.sh
#
# Not part of `cargo test`: it measures behaviour under load, which is a
# benchmark's business; the result is recorded in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${SYNCSCOPE:-target/debug/syncscope}
LOAD=${LOAD:-2}
[ -x "$BIN" ] || cargo build -p syncscope
work=$(mktemp -d)
busy=()
cleanup() {
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq "$LOAD"); do
    (while :; do :; done) &
    busy+=("$!")
done
verdicts() {
    "$BIN" check --format json tests/corpus examples > "$work/raw.json" || true
    python3 - "$work/raw.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in r["kernels"]:
    print("kernel", k["file"], k["name"], k["status"])
for f in r["findings"]:
    print("finding", f["kind"], f["file"], f.get("kernel"), f["range"]["start"]["line"])
PY
}
start=$(date +%s)
verdicts | sort > "$work/first"
verdicts | sort > "$work/second"
end=$(date +%s)
kernels=$(grep -c '^kernel' "$work/first")
if diff -u "$work/first" "$work/second"; then
    echo "determinism: identical verdicts in two runs ($kernels kernels, $LOAD busy processes, $((end - start)) s)"
else
    echo "determinism: verdicts differ between two runs (see the diff above)"
    exit 1
fi
