#!/usr/bin/env bash
# Lays out the server a Linux platform .vsix carries, so that it starts on a
# machine without Z3 (or with another version of it):
#
#   bash scripts/bundle-server.sh path/to/syncscope DIR
#
# copies the binary to DIR/syncscope and the libz3 it was linked with to
# DIR/<its soname> (libz3.so.4): the binary is linked with RUNPATH $ORIGIN
# (server/syncscope/build.rs), so the dynamic loader takes that copy before
# any system one. Z3 is MIT-licensed; its licence goes along as
# DIR/LICENSE.z3.txt. Then checks with ldd that libz3 resolves inside DIR.
# package-platform.js runs it on Linux; server/syncscope/tests/bundled_server.rs
# runs it and starts the result with the system's libz3 hidden.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: bundle-server.sh SYNCSCOPE_BINARY DIR" >&2
  exit 2
fi
src="$1"
dir="$2"
if [ "$(uname -s)" != Linux ]; then
  echo "error: bundle-server.sh lays out a Linux server (see docs/editors.md for other systems)" >&2
  exit 1
fi
if ! readelf -d "$src" 2>/dev/null | grep -q 'R.*PATH.*\$ORIGIN'; then
  echo "error: $src does not look for libraries next to itself (no RUNPATH \$ORIGIN); build it with this repository's server/syncscope (cargo build --release -p syncscope)" >&2
  exit 1
fi
# `libz3.so.4 => /usr/lib/x86_64-linux-gnu/libz3.so.4 (0x...)`
z3_line="$(ldd "$src" | awk '$1 ~ /^libz3\./ { print $1, $3; exit }')"
if [ -z "$z3_line" ]; then
  if ldd "$src" | grep -q 'libz3'; then
    echo "error: the libz3 $src links cannot be found on this machine (ldd: $(ldd "$src" | grep libz3))" >&2
    exit 1
  fi
  # Linked statically (the z3 crate's `static-link-z3`): nothing to ship.
  mkdir -p "$dir"
  install -m 755 "$src" "$dir/syncscope"
  echo "bundle-server: $src carries Z3 itself"
  exit 0
fi
soname="${z3_line%% *}"
lib="${z3_line#* }"
if [ ! -f "$lib" ]; then
  echo "error: the libz3 $src links cannot be found on this machine (ldd: $z3_line)" >&2
  exit 1
fi
mkdir -p "$dir"
install -m 755 "$src" "$dir/syncscope"
install -m 644 "$(readlink -f "$lib")" "$dir/$soname"
for license in /usr/share/doc/libz3-4/copyright /usr/share/doc/libz3-dev/copyright; do
  if [ -f "$license" ]; then
    install -m 644 "$license" "$dir/LICENSE.z3.txt"
    break
  fi
done
[ -f "$dir/LICENSE.z3.txt" ] || printf '%s\n' "Z3 (https://github.com/Z3Prover/z3) is distributed under the MIT License." >"$dir/LICENSE.z3.txt"
bundled="$(cd "$dir" && pwd)/$soname"
resolved="$(ldd "$dir/syncscope" | awk -v s="$soname" '$1 == s { print $3 }')"
if [ "$resolved" != "$bundled" ]; then
  echo "error: $dir/syncscope loads $soname from ${resolved:-nowhere}, not from $bundled" >&2
  exit 1
fi
echo "bundle-server: $dir/syncscope with $soname (from $lib)"
