#!/usr/bin/env bash
# folder_order_selftest.sh SOURCE_DIR
# tests/cli/folder_order.sh on copies of the tree's C files: the copy as it
# is passes; each planted violation (an include of a later folder, of the
# other platform, a name held twice, a file outside the folders) fails and
# is named. Prints "N passed, N failed".
set -u
src=${1:?usage: folder_order_selftest.sh SOURCE_DIR}
check_sh=$(dirname "$0")/folder_order.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$1"; }

fresh() { # a clean copy of the tree's C files in $tmp/t
  rm -rf "$tmp/t"
  mkdir -p "$tmp/t"
  (cd "$src" && find core wasm native tools tests -type f \( -name '*.c' -o -name '*.h' \
    -o -name '*.cpp' \) -not -path '*/node_modules/*' -print0 |
    xargs -0 cp --parents -t "$tmp/t")
}

# expect_fail WHAT FILE_NAMED: the check fails and its output names FILE_NAMED
expect_fail() {
  local out
  if out=$(bash "$check_sh" "$tmp/t" 2>&1); then
    bad "$1: passed, a failure expected"
  elif ! grep -qF "$2" <<<"$out"; then
    bad "$1: failed without naming $2: $out"
  else
    ok
  fi
}
expect_pass() {
  local out
  if out=$(bash "$check_sh" "$tmp/t" 2>&1); then ok; else bad "$1: $out"; fi
}
plant() { printf '#include "%s"\n' "$2" >>"$tmp/t/$1"; } # FILE HEADER

fresh
expect_pass "the tree as it is"

fresh; plant core/base/base.c app.h
expect_fail "a core layer including a later layer" "core/base/base.c: includes core/app/app.h"
fresh; plant core/app/app.c gl_renderer.h
expect_fail "the core including the renderer" "core/app/app.c: includes core/render/gl_renderer.h"
fresh; plant core/render/glyphs.c js_bridge.h
expect_fail "the renderer including the page" "core/render/glyphs.c: includes wasm/js_bridge.h"
fresh; plant native/native_view.c ../wasm/js_bridge.h
expect_fail "the window including the page (by path)" "native/native_view.c: includes wasm/js_bridge.h"
fresh; plant wasm/main.c native.h
expect_fail "the page including the window" "wasm/main.c: includes native/native.h"
fresh; plant native/native.h cli_feed.h
expect_fail "the window including the CLI" "native/native.h: includes tools/cli/cli_feed.h"
fresh; plant tools/cli/cli_view.c ../../tests/unit/check.h
expect_fail "a tool including the tests" "tools/cli/cli_view.c: includes tests/unit/check.h"

# the analysis layer (core/analysis/) sits between index and set
fresh; mkdir -p "$tmp/t/core/analysis"; echo '/* a.h */' >"$tmp/t/core/analysis/planted_a.h"
plant core/set/traceset.c planted_a.h
expect_pass "set including analysis"
plant core/index/lod.c planted_a.h
expect_fail "index including analysis" "core/index/lod.c: includes core/analysis/planted_a.h"

fresh; echo '/* twin */' >"$tmp/t/native/main.c"
expect_fail "two files named main.c" "main.c: native/main.c wasm/main.c"
fresh; echo '/* stray */' >"$tmp/t/stray.c"
expect_fail "a C file outside the folders" "stray.c"
fresh; plant tools/cli/cli_view.c native.h; plant tests/unit/check.h cli.h
expect_pass "later folders including earlier ones"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
