#!/usr/bin/env bash
# Right verdicts by corpus category (construct family): runs a syncscope
# binary on every .cu file of the given corpus folders with the file's own
# arguments and compares each kernel's status with its `// expect-kernel:`
# line.
# Usage: tests/tools/precision_table.sh BINARY DIR...
# Prints one row per folder: kernels expected race-free (verified) right,
# expected racy (racy, divergent or assertion-failed) right, in total, and
# how many of those kernels came out `not-verified` or `unknown` instead of
# their expected status
# (kernels expected `not-verified` are not counted: they name a construct
# outside the model on purpose).
# Two binaries (an older build against this one) give a before/after table:
#   tests/tools/precision_table.sh OLD DIR... > before.md
#   tests/tools/precision_table.sh NEW DIR... > after.md
set -euo pipefail
bin=$1
shift
printf '| category | race-free right | racy right | all right | not-verified or unknown |\n|---|---|---|---|---|\n'
for dir in "$@"; do
    free=0 free_ok=0 bad=0 bad_ok=0 undecided=0
    for f in "$dir"/*.cu; do
        read -r -a args <<<"$(sed -n 's|^// syncscope-args:||p' "$f" | head -1)"
        got=$("$bin" check --format=json "${args[@]}" "$f" 2>/dev/null |
            jq -r '.kernels[] | "\(.name) \(.status)"' || true)
        while read -r _ name want; do
            status=$(awk -v n="$name" '$1 == n { print $2; exit }' <<<"$got")
            [ "$want" = not-verified ] && continue
            if [ "$status" != "$want" ]; then
                case "$status" in not-verified | unknown | "") undecided=$((undecided + 1)) ;; esac
            fi
            if [ "$want" = verified ]; then
                free=$((free + 1))
                [ "$status" = "$want" ] && free_ok=$((free_ok + 1))
            else
                bad=$((bad + 1))
                [ "$status" = "$want" ] && bad_ok=$((bad_ok + 1))
            fi
        done < <(grep '^// expect-kernel:' "$f" | sed 's|^// expect-kernel:||' | sed 's/^/x /')
    done
    printf '| %s | %d/%d | %d/%d | %d/%d | %d |\n' "$(basename "$dir")" \
        "$free_ok" "$free" "$bad_ok" "$bad" $((free_ok + bad_ok)) $((free + bad)) "$undecided"
done
