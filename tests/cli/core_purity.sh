#!/usr/bin/env bash
# core_purity.sh LIBSTRATA_CORE.a SOURCE_DIR [LIBSTRATA_RENDER.a]
# The core's rules, checked (DESIGN.md, STYLE.md practice 1):
#   1. no mutable global state: no object in a writable data section (.data,
#      .bss; read-only .rodata/.data.rel.ro are fine);
#   2. no platform or I/O headers (emscripten, SDL, GL, POSIX, time);
#   3. no I/O, clock or environment calls, and no allocation outside the
#      st_alloc hook in base.c;
#   4. every core file in a layer folder (core/README.md): base, model,
#      import, index, analysis, set, view, draw, ui, report, app (one level of
#      sub-folders each: core/import/chrome/), or render.
# core/render/ (the GL ES 3 renderer and glyph atlas, strata_render, not in
# the core library) is held to its own rule: GL ES 3 headers and the C
# library only (no SDL, emscripten, EGL, desktop GL, POSIX), and no mutable
# globals in its library either (when given). The order of
# the layers and of every folder after them is tests/cli/folder_order.sh's.
# Prints "N passed, N failed".
set -u
lib=$1 src=$2 render_lib=${3:-}
pass=0 fail=0
check() { # name, offending lines
  if [ -z "$2" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL %s:\n%s\n' "$1" "$2"; fi
}
globals=$(objdump -t "$lib" | awk '$0 ~ /[ \t]\.(data|bss)([ \t]|\.[^r])/ && $0 !~ /\.data\.rel\.ro/ && $3 == "O"')
check "mutable globals in the core" "$globals"
if [ -n "$render_lib" ]; then
  globals=$(objdump -t "$render_lib" | awk '$0 ~ /[ \t]\.(data|bss)([ \t]|\.[^r])/ && $0 !~ /\.data\.rel\.ro/ && $3 == "O"')
  check "mutable globals in core/render" "$globals"
fi
core_files() { find "$src/core" -path "$src/core/render" -prune -o -name "$1" -print; }
headers=$(grep -nE '#include[[:space:]]*[<"](emscripten|SDL|GL|GLES|EGL|unistd|pthread|time|sys/|windows|fcntl|dirent)' $(core_files '*.[ch]'))
check "platform headers in core/" "$headers"
render=$(grep -nE '#include[[:space:]]*[<"](emscripten|SDL|GL/|GLES/|GLES2/|EGL|KHR|unistd|pthread|sys/|windows|fcntl|dirent)' $(find "$src/core/render" -name '*.[ch]'))
check "platform headers other than GL ES 3 in core/render/" "$render"
code_only() { grep -vE ':[0-9]+:[[:space:]]*(\*|/\*|//)'; } # drop comment lines
calls=$(grep -nE '(^|[^_[:alnum:]])(printf|fprintf|puts|fputs|fopen|fread|fwrite|fclose|getenv|clock|time|exit|abort)[[:space:]]*\(' $(core_files '*.c') | code_only)
check "I/O, clock or exit calls in core/" "$calls"
allocs=$(grep -nE '(^|[^_[:alnum:]])(malloc|calloc|realloc|free)[[:space:]]*\(' $(core_files '*.c') | grep -v "^$src/core/base/base.c:" | code_only)
check "allocation outside st_alloc" "$allocs"
layers=(base model import index analysis set view draw ui report app)
stray=$(core_files '*.[ch]' | grep -vE "/core/($(IFS='|'; echo "${layers[*]}"))/([^/]+/)?[^/]+$")
check "core files outside the layer folders" "$stray"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
