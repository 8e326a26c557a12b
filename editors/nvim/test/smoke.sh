#!/usr/bin/env bash
# Smoke test of the Neovim plugin without a language server (dummy command).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvim="${NVIM:-nvim}"
if ! command -v "$nvim" >/dev/null 2>&1; then
  echo "nvim-smoke: FAIL: Neovim ('$nvim') is not installed or not on PATH" >&2
  exit 1
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/syncscope-nvim-smoke.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/work" "$tmp/xdg"
export XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" \
  XDG_STATE_HOME="$tmp/xdg/state" XDG_CACHE_HOME="$tmp/xdg/cache"
export SYNCSCOPE_E2E_PLUGIN="$(cd "$here/.." && pwd)" SYNCSCOPE_SMOKE_DIR="$(cd "$tmp/work" && pwd -P)"
cd "$tmp/work" && timeout --kill-after=5 60 "$nvim" --headless --clean -u NONE -i NONE -n \
  -c "luafile $here/smoke.lua" </dev/null
