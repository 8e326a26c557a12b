#!/usr/bin/env bash
# Compile every harness of tools/gpu-crosscheck/harness and run each case under
# compute-sanitizer racecheck.  Run THERE (the GPU machine), from the repo root:
#
#     OUT=./out bash tools/gpu-crosscheck/run.sh
#
# No network, no Python needed.  Every failure is recorded, none is fatal.
# Writes under $OUT: results.json, results.tsv, env.txt, manifest.json,
# logs/<file-id>.compile.log, logs/<case-id>.log.
#
# Knobs (environment): XCHK_BUDGET_S (default 270: no compile/run starts after
# it; the last runs end at most XCHK_RUN_TIMEOUT+5 s later), XCHK_JOBS (12),
# XCHK_COMPILE_TIMEOUT (60), XCHK_RUN_TIMEOUT (30), NVCC_EXTRA (extra nvcc
# flags, e.g. -G to keep every shared access), XCHK_ARCH (e.g. sm_90; default
# -arch=native after a probe), HDIR (harness folder).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
export HDIR=${HDIR:-$HERE/harness}
export OUT=${OUT:-./out}
mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/res"
OUT=$(cd "$OUT" && pwd)
export XCHK_JOBS=${XCHK_JOBS:-12}
export XCHK_COMPILE_TIMEOUT=${XCHK_COMPILE_TIMEOUT:-60}
export XCHK_RUN_TIMEOUT=${XCHK_RUN_TIMEOUT:-30}
export NVCC_EXTRA=${NVCC_EXTRA:-}
BUDGET=${XCHK_BUDGET_S:-270}
START=$(date +%s)
export XCHK_DEADLINE=$((START + BUDGET))

log() { echo "[xchk $(( $(date +%s) - START ))s] $*" >&2; }

# ---------------------------------------------------------------- tools
find_tool() {
    local t=$1
    if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return; fi
    for d in /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer /opt/cuda/bin /usr/local/cuda-*/bin /usr/local/cuda-*/compute-sanitizer; do
        if [ -x "$d/$t" ]; then echo "$d/$t"; return; fi
    done
    echo ""
}
export NVCC=$(find_tool nvcc)
export SANITIZER=$(find_tool compute-sanitizer)
{
    echo "date: $(date -u)"
    echo "nvcc: ${NVCC:-MISSING}"; [ -n "$NVCC" ] && "$NVCC" --version 2>&1 | tail -2
    echo "compute-sanitizer: ${SANITIZER:-MISSING}"; [ -n "$SANITIZER" ] && "$SANITIZER" --version 2>&1 | tail -2
    nvidia-smi -L 2>&1 | head -4
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv 2>&1 | head -3
    echo "nproc: $(nproc)"
} > "$OUT/env.txt" 2>&1
cp "$HDIR/manifest.json" "$OUT/manifest.json" 2>/dev/null
cat "$OUT/env.txt" >&2

if [ -z "$NVCC" ] || [ -z "$SANITIZER" ]; then
    log "nvcc or compute-sanitizer missing: nothing can run (see env.txt)"
fi

# ---------------------------------------------------------------- probes
PROBE=$(mktemp -d)
cat > "$PROBE/p.cu" <<'EOF'
#include <cstdio>
__global__ void probe_race(int *o) { __shared__ int s[64]; s[threadIdx.x] = threadIdx.x; o[threadIdx.x] = s[(threadIdx.x + 1) % 64]; }
int main() { int *o; cudaMalloc(&o, 256); probe_race<<<1, 64>>>(o); printf("probe %s\n", cudaGetErrorString(cudaDeviceSynchronize())); return 0; }
EOF
ARCH_FLAGS=""
if [ -n "${XCHK_ARCH:-}" ]; then
    ARCH_FLAGS="-arch=$XCHK_ARCH"
elif [ -n "$NVCC" ]; then
    if timeout 90 "$NVCC" -arch=native -o "$PROBE/p" "$PROBE/p.cu" > "$PROBE/native.log" 2>&1; then
        ARCH_FLAGS="-arch=native"
    else
        CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
        ARCH_FLAGS="-arch=sm_${CC:-90}"
        log "-arch=native failed ($(head -1 "$PROBE/native.log")); using $ARCH_FLAGS"
    fi
fi
export ARCH_FLAGS
export NVCC_FLAGS="$ARCH_FLAGS -std=c++17 -lineinfo -I$HDIR -Xcompiler -w $NVCC_EXTRA"
echo "nvcc flags: $NVCC_FLAGS" >> "$OUT/env.txt"

RC_FLAGS=""
if [ -n "$SANITIZER" ]; then
    HELP=$("$SANITIZER" --help 2>&1; "$SANITIZER" --tool racecheck --help 2>&1)
    echo "$HELP" | grep -q -- "--racecheck-report" && RC_FLAGS="$RC_FLAGS --racecheck-report hazard"
    echo "$HELP" | grep -q -- "--print-limit" && RC_FLAGS="$RC_FLAGS --print-limit 20"
    echo "$HELP" | grep -q -- "--racecheck-detect-level" && RC_FLAGS="$RC_FLAGS --racecheck-detect-level info"
fi
export RC_FLAGS
echo "racecheck flags: --tool racecheck$RC_FLAGS" >> "$OUT/env.txt"
log "nvcc flags: $NVCC_FLAGS"
log "racecheck flags: --tool racecheck$RC_FLAGS"
# the probe under racecheck: shows the report format in the log, checks the flags
if [ -x "$PROBE/p" ] && [ -n "$SANITIZER" ]; then
    timeout 60 "$SANITIZER" --tool racecheck $RC_FLAGS "$PROBE/p" > "$OUT/logs/_probe.log" 2>&1
    if grep -qiE "unrecognized|unknown option|invalid option|invalid value" "$OUT/logs/_probe.log"; then
        log "racecheck rejected the flags; falling back to defaults"
        RC_FLAGS=""; export RC_FLAGS
        echo "racecheck flags (fallback): --tool racecheck" >> "$OUT/env.txt"
        timeout 60 "$SANITIZER" --tool racecheck "$PROBE/p" > "$OUT/logs/_probe.log" 2>&1
    fi
    log "probe under racecheck: $(grep -ciE "(error|warning|info)[: ]+ *(\([^)]*\) *)?(potential [a-z]+ hazard|race reported)" "$OUT/logs/_probe.log") hazard line(s) (a race is expected; log: logs/_probe.log)"
fi

# ---------------------------------------------------------------- jobs
json_esc() { printf '%s' "$1" | tr -d '\000-\010\013-\037' | tr '\t\n' '  ' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | cut -c1-400; }
export -f json_esc

# one JSON object per case, in $OUT/res/<id>.json
record() {  # id fid case phase rc seconds note
    local id=$1 fid=$2 c=$3 phase=$4 rc=$5 secs=$6 note=$7
    local log="logs/$id.log" hz=0 errs="" done=0
    if [ -f "$OUT/$log" ]; then
        hz=$(grep -ciE "(error|warning|info)[: ]+ *(\([^)]*\) *)?(potential [a-z]+ hazard|race reported)" "$OUT/$log")
        errs=$(grep -m1 -E "RACECHECK SUMMARY" "$OUT/$log")
        grep -q "XCHK DONE" "$OUT/$log" && done=1
    else
        log=""
    fi
    printf '{"id":"%s","file_id":"%s","case":%s,"phase":"%s","rc":%s,"seconds":%s,"kernel_done":%s,"hazard_lines":%s,"summary":"%s","note":"%s","log":"%s","compile_log":"logs/%s.compile.log"}\n' \
        "$id" "$fid" "$c" "$phase" "${rc:-null}" "${secs:-0}" "$done" "${hz:-0}" "$(json_esc "$errs")" "$(json_esc "$note")" "$log" "$fid" \
        > "$OUT/res/$id.json"
}
export -f record

job() {
    local fid=$1 now t0 rc note id c
    local cases
    cases=$(awk -F'\t' -v f="$fid" '$1 == f {print $2 "\t" $3}' "$HDIR/cases.tsv")
    now=$(date +%s)
    if [ -z "$NVCC" ] || [ "$now" -ge "$XCHK_DEADLINE" ]; then
        while IFS=$'\t' read -r c id; do [ -n "$id" ] && record "$id" "$fid" "$c" not-run null 0 "no time left (XCHK_BUDGET_S) or no nvcc"; done <<< "$cases"
        return 0
    fi
    t0=$(date +%s)
    timeout -k 5 "$XCHK_COMPILE_TIMEOUT" "$NVCC" $NVCC_FLAGS -o "$OUT/bin/$fid" "$HDIR/$fid.cu" > "$OUT/logs/$fid.compile.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then note="compile timed out after ${XCHK_COMPILE_TIMEOUT}s"
        else note=$(grep -m1 -E "error|Error" "$OUT/logs/$fid.compile.log"); [ -z "$note" ] && note=$(head -1 "$OUT/logs/$fid.compile.log"); fi
        while IFS=$'\t' read -r c id; do [ -n "$id" ] && record "$id" "$fid" "$c" compile-failed "$rc" $(( $(date +%s) - t0 )) "$note"; done <<< "$cases"
        return 0
    fi
    while IFS=$'\t' read -r c id; do
        [ -z "$id" ] && continue
        now=$(date +%s)
        if [ -z "$SANITIZER" ] || [ "$now" -ge "$XCHK_DEADLINE" ]; then
            record "$id" "$fid" "$c" not-run null 0 "no time left (XCHK_BUDGET_S) or no compute-sanitizer"
            continue
        fi
        t0=$(date +%s)
        timeout -k 5 "$XCHK_RUN_TIMEOUT" "$SANITIZER" --tool racecheck $RC_FLAGS "$OUT/bin/$fid" "$c" > "$OUT/logs/$id.log" 2>&1
        rc=$?
        if grep -qiE "unrecognized option|unknown option|invalid option" "$OUT/logs/$id.log"; then
            timeout -k 5 "$XCHK_RUN_TIMEOUT" "$SANITIZER" --tool racecheck "$OUT/bin/$fid" "$c" > "$OUT/logs/$id.log" 2>&1
            rc=$?
        fi
        note=""
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then note="timed out after ${XCHK_RUN_TIMEOUT}s"; fi
        [ -z "$note" ] && note=$(grep -m1 -E "XCHK (LAUNCH ERROR|SYNC ERROR|SKIP|ALLOC ERROR|ATTR ERROR)" "$OUT/logs/$id.log")
        record "$id" "$fid" "$c" run "$rc" $(( $(date +%s) - t0 )) "$note"
    done <<< "$cases"
    rm -f "$OUT/bin/$fid"   # keep $OUT small
}
export -f job

NFILES=$(grep -c . "$HDIR/files.txt")
NCASES=$(grep -c . "$HDIR/cases.tsv")
log "$NFILES harness files, $NCASES cases, $XCHK_JOBS jobs, budget ${BUDGET}s"
grep . "$HDIR/files.txt" | xargs -P "$XCHK_JOBS" -I{} bash -c 'job "$1"' _ {}

# ---------------------------------------------------------------- results
{
    echo "{"
    echo "\"env\": \"$(json_esc "$(cat "$OUT/env.txt")")\","
    echo "\"wall_seconds\": $(( $(date +%s) - START )),"
    echo "\"cases\": ["
    first=1
    while IFS=$'\t' read -r fid c id; do
        [ -z "$id" ] && continue
        if [ -f "$OUT/res/$id.json" ]; then line=$(cat "$OUT/res/$id.json")
        else line="{\"id\":\"$id\",\"file_id\":\"$fid\",\"case\":$c,\"phase\":\"missing\",\"rc\":null,\"seconds\":0,\"kernel_done\":0,\"hazard_lines\":0,\"summary\":\"\",\"note\":\"job did not record a result\",\"log\":\"\",\"compile_log\":\"logs/$fid.compile.log\"}"; fi
        if [ $first -eq 1 ]; then first=0; else echo ","; fi
        printf '%s' "$line"
    done < "$HDIR/cases.tsv"
    echo ""
    echo "]"
    echo "}"
} > "$OUT/results.json"
cat "$OUT"/res/*.json 2>/dev/null | sed -e 's/^{"id":"\([^"]*\)".*"phase":"\([^"]*\)","rc":\([^,]*\),.*"hazard_lines":\([0-9]*\).*/\1\t\2\t\3\t\4/' > "$OUT/results.tsv"
rm -rf "$OUT/bin" "$PROBE"
# One archive instead of a thousand logs: a remote runner may bring back
# only so many files (compare.py unpacks it).
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs res && rm -rf "$OUT/logs" "$OUT/res"
log "done in $(( $(date +%s) - START ))s: $(grep -c '"phase":"run"' "$OUT/results.json") run, $(grep -c '"phase":"compile-failed"' "$OUT/results.json") compile failures, $(grep -c '"phase":"not-run"' "$OUT/results.json") not run; results in $OUT/results.json"
exit 0
