#!/usr/bin/env bash
# End-to-end test: Neovim's built-in LSP client + editors/nvim plugin against
# `syncscope lsp`. Opens a racy kernel, waits for the `data-race` diagnostic,
# applies the `__syncthreads()` quick fix and checks the race is gone.
#
#   editors/nvim/test/e2e.sh [path/to/syncscope]   (default: target/debug/syncscope)
#   editors/nvim/test/e2e.sh --mock                (self-test against mock-syncscope)
#
# Environment: SYNCSCOPE_E2E_TIMEOUT_MS (per step, default 30000),
#              SYNCSCOPE_E2E_TOTAL_TIMEOUT (seconds, default 180), NVIM (binary).
#
# Runs the test once per way of configuring the server that this Neovim
# supports: `require("syncscope").setup()` (every version, 0.7+), and
# `vim.lsp.config` + `vim.lsp.enable` with the plugin's lsp/syncscope.lua
# (0.11+ only: with an older Neovim that run is reported as skipped).
# Prints `nvim-e2e: N passed, M failed` and exits non-zero if any failed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin="$(cd "$here/.." && pwd)"
repo="$(cd "$here/../../.." && pwd)"
nvim="${NVIM:-nvim}"

passed=0
failed=0
skipped=0
result() {
  if [ "$skipped" -gt 0 ]; then
    echo "nvim-e2e: $passed passed, $failed failed, $skipped skipped"
  else
    echo "nvim-e2e: $passed passed, $failed failed"
  fi
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}
fail() {
  echo "nvim-e2e: FAIL: $*" >&2
  failed=$((failed + 1))
  result
}

bin="${1:-target/debug/syncscope}"
if [ "$bin" = "--mock" ]; then
  command -v node >/dev/null 2>&1 || fail "--mock needs node on PATH"
  bin="$here/mock-syncscope"
fi
case "$bin" in
  /*) ;;
  *) if [ -e "$bin" ]; then bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"; else bin="$repo/$bin"; fi ;;
esac

if ! command -v "$nvim" >/dev/null 2>&1; then
  fail "Neovim ('$nvim') is not installed or not on PATH; install Neovim >= 0.7 (e.g. apt-get install -y neovim) or set NVIM=/path/to/nvim"
fi
version_line="$("$nvim" --version 2>/dev/null | head -n 1)"
if [[ "$version_line" =~ v([0-9]+)\.([0-9]+) ]]; then
  major="${BASH_REMATCH[1]}"
  minor="${BASH_REMATCH[2]}"
  if [ "$major" -eq 0 ] && [ "$minor" -lt 7 ]; then
    fail "$version_line is too old; the plugin needs Neovim >= 0.7"
  fi
else
  fail "could not determine the Neovim version from '$version_line'"
fi
echo "nvim-e2e: using $version_line ($(command -v "$nvim"))"

[ -f "$bin" ] || fail "server binary '$bin' does not exist (build it first: cargo build -p syncscope)"
[ -x "$bin" ] || fail "server binary '$bin' is not executable"
echo "nvim-e2e: server: $bin lsp"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/syncscope-nvim-e2e.XXXXXX")"
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/work" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache"

cat >"$tmp/work/shift.cu" <<'CUDA'
__global__ void shift(float *out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = out[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = s[(t + 1) % blockDim.x];
}
CUDA

export XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" \
  XDG_STATE_HOME="$tmp/xdg/state" XDG_CACHE_HOME="$tmp/xdg/cache"
export SYNCSCOPE_E2E_PLUGIN="$plugin" SYNCSCOPE_E2E_BIN="$bin" SYNCSCOPE_E2E_FILE="$tmp/work/shift.cu"
export SYNCSCOPE_E2E_TIMEOUT_MS="${SYNCSCOPE_E2E_TIMEOUT_MS:-30000}"

total="${SYNCSCOPE_E2E_TOTAL_TIMEOUT:-180}"
run_mode() {
  local mode=$1
  cp "$tmp/shift.cu.orig" "$tmp/work/shift.cu"
  rm -rf "$tmp/xdg/state" "$tmp/xdg/cache" && mkdir -p "$tmp/xdg/state" "$tmp/xdg/cache"
  echo "nvim-e2e: ---- $mode ----"
  (cd "$tmp/work" && SYNCSCOPE_E2E_MODE="$mode" timeout --kill-after=10 "$total" "$nvim" --headless --clean -u NONE -i NONE -n \
    -c "luafile $here/e2e.lua" </dev/null) 2>&1 | tee "$tmp/nvim.out"
  local rc="${PIPESTATUS[0]}"
  if [ "$rc" -ne 0 ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "nvim-e2e: FAIL ($mode): Neovim did not finish within ${total}s" >&2
    elif ! grep -q "nvim-e2e: FAIL" "$tmp/nvim.out"; then
      echo "nvim-e2e: FAIL ($mode): nvim exited with status $rc" >&2
    fi
    for log in "$tmp"/xdg/state/nvim/lsp.log "$tmp"/xdg/cache/nvim/lsp.log; do
      if [ -s "$log" ]; then
        echo "---- tail of $log (includes the server's stderr) ----" >&2
        tail -n 40 "$log" >&2
      fi
    done
    failed=$((failed + 1))
  elif grep -q "nvim-e2e: PASS" "$tmp/nvim.out"; then
    passed=$((passed + 1))
  else
    echo "nvim-e2e: FAIL ($mode): nvim exited 0 without reporting PASS" >&2
    failed=$((failed + 1))
  fi
}

cp "$tmp/work/shift.cu" "$tmp/shift.cu.orig"
run_mode setup
if [ "$major" -gt 0 ] || [ "$minor" -ge 11 ]; then
  run_mode lsp-config
else
  echo "nvim-e2e: skipped the vim.lsp.config run: it needs Neovim 0.11+, this is $version_line (NVIM=/path/to/nvim to use another)"
  skipped=$((skipped + 1))
fi
result
