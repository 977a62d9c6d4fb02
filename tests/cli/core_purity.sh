#!/usr/bin/env bash
# core_purity.sh LIBSTRATA_CORE.a SOURCE_DIR
# The core's rules, checked (DESIGN.md, STYLE.md practice 1):
#   1. no mutable global state: no object in a writable data section (.data,
#      .bss; read-only .rodata/.data.rel.ro are fine);
#   2. no platform or I/O headers (emscripten, SDL, GL, POSIX, time);
#   3. no I/O, clock or environment calls, and no allocation outside the
#      st_alloc hook in base.c;
#   4. the layers (core/README.md): a file includes headers of its own layer
#      or of the layers before it in base, model, import, index, analysis, set,
#      view, draw, ui, report, app; never of a later one (no cycles between the folders). A layer may
#      hold one level of sub-folders (core/import/chrome/): they count as it.
# Prints "N passed, N failed".
set -u
lib=$1 src=$2
pass=0 fail=0
check() { # name, offending lines
  if [ -z "$2" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL %s:\n%s\n' "$1" "$2"; fi
}
globals=$(objdump -t "$lib" | awk '$0 ~ /[ \t]\.(data|bss)([ \t]|\.[^r])/ && $0 !~ /\.data\.rel\.ro/ && $3 == "O"')
check "mutable globals in the core" "$globals"
headers=$(grep -nE '#include[[:space:]]*[<"](emscripten|SDL|GL|GLES|EGL|unistd|pthread|time|sys/|windows|fcntl|dirent)' $(find "$src/core" -name '*.[ch]'))
check "platform headers in core/" "$headers"
code_only() { grep -vE ':[0-9]+:[[:space:]]*(\*|/\*|//)'; } # drop comment lines
calls=$(grep -nE '(^|[^_[:alnum:]])(printf|fprintf|puts|fputs|fopen|fread|fwrite|fclose|getenv|clock|time|exit|abort)[[:space:]]*\(' $(find "$src/core" -name '*.c') | code_only)
check "I/O, clock or exit calls in core/" "$calls"
allocs=$(grep -nE '(^|[^_[:alnum:]])(malloc|calloc|realloc|free)[[:space:]]*\(' $(find "$src/core" -name '*.c') | grep -v "^$src/core/base/base.c:" | code_only)
check "allocation outside st_alloc" "$allocs"
layers=(base model import index analysis set view draw ui report app)
stray=$(find "$src/core" -name '*.[ch]' | grep -vE "/core/($(IFS='|'; echo "${layers[*]}"))/([^/]+/)?[^/]+$")
check "core files outside the layer folders" "$stray"
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done; echo 99; }
upward=""
for f in $(find "$src/core" -name '*.[ch]' | sort); do
  rel=${f#$src/core/}
  mine=$(rank "${rel%%/*}")
  while IFS= read -r h; do
    [ -n "$h" ] || continue
    owner=$(cd "$src/core" && find . -name "$(basename "$h")" | sed 's#^\./##' | head -n1)
    [ -n "$owner" ] || continue
    theirs=$(rank "${owner%%/*}")
    [ "$theirs" -le "$mine" ] || upward+="${f#$src/}: includes ${owner} (a later layer)"$'\n'
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f")
done
check "includes of a later layer" "$upward"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
