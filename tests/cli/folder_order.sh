#!/usr/bin/env bash
# folder_order.sh SOURCE_DIR
# The order of the tree's folders, checked over every C source and header:
#   core/base, core/model, core/import, core/index, core/analysis, core/set,
#   core/view, core/draw, core/ui, core/report, core/app   the core's layers (core/README.md)
#   core/render   the GL ES 3 renderer and glyph atlas (strata_render)
#   wasm, native  the page's platform, the window's: side by side, neither
#                 includes the other
#   tools         the CLI, the generators, the benchmarks
#   tests         the tests
# A file may include headers of its own folder or of folders before it in
# this list, never of a later one (so no two folders use each other). A
# folder's sub-folders count as it (core/import/chrome/, wasm/parse/,
# tools/cli/). A header is found by its path when the include has one
# ("../unit/x.h"), else by its name (headers are included by name through
# the include directories); a header the tree does not hold (system,
# generated: shaders.h) is not checked. Also checked: every C file lies in
# one of these folders, and no two C files (.c or .h) share a name, so a
# name says which file it is. tests/cli/folder_order_selftest.sh plants
# violations and expects each to fail.
# Prints "N passed, N failed".
set -u
src=${1:?usage: folder_order.sh SOURCE_DIR}
folders=(core/base core/model core/import core/index core/analysis core/set core/view core/draw
  core/ui core/report core/app core/render wasm native tools tests)
levels=(0 1 2 3 4 5 6 7 8 9 10 11 12 12 13 14) # wasm and native side by side
pass=0 fail=0
check() { # name, offending lines
  if [ -z "$2" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL %s:\n%s\n' "$1" "$2"; fi
}

# rank of a path relative to src: the index of the folder holding it, or -1
rank() {
  local i
  for i in "${!folders[@]}"; do
    case "$1" in "${folders[$i]}"/*) echo "$i"; return ;; esac
  done
  echo -1
}

mapfile -t files < <(cd "$src" && find . \( -name build -o -name 'build-*' -o -name .git \
  -o -name node_modules -o -name dist \) -prune -o -type f \( -name '*.c' -o -name '*.h' \
  -o -name '*.cc' -o -name '*.cpp' \) -print | sed 's#^\./##' | sort)

declare -A owner_of count_of rank_of
for f in "${files[@]}"; do
  b=${f##*/}
  count_of[$b]=$(( ${count_of[$b]:-0} + 1 ))
  [ -n "${owner_of[$b]:-}" ] || owner_of[$b]=$f
  rank_of[$f]=$(rank "$f")
done

stray="" dups=""
for f in "${files[@]}"; do
  [ "${rank_of[$f]}" -ge 0 ] || stray+="$f"$'\n'
done
for b in $(printf '%s\n' "${!count_of[@]}" | sort); do
  [ "${count_of[$b]}" -gt 1 ] || continue
  dups+="$b: $(printf '%s\n' "${files[@]}" | grep -E "(^|/)${b//./\\.}\$" | tr '\n' ' ')"$'\n'
done
check "C files outside the ordered folders (${folders[*]})" "$stray"
check "C files sharing a name" "$dups"

upward=""
for f in "${files[@]}"; do
  mine=${rank_of[$f]}
  [ "$mine" -ge 0 ] || continue
  dir=${f%/*}
  while IFS= read -r h; do
    [ -n "$h" ] || continue
    theirs="" path=""
    if [[ "$h" == */* ]]; then
      path=$(realpath -m --relative-to="$src" "$src/$dir/$h")
      [ -n "${rank_of[$path]:-}" ] || path=""
    fi
    if [ -z "$path" ]; then
      b=${h##*/}
      path=${owner_of[$b]:-}
      # a name held twice (already a failure above): the including folder's own first
      if [ -n "$path" ] && [ "${count_of[$b]}" -gt 1 ]; then
        for g in "${files[@]}"; do
          [ "${g##*/}" = "$b" ] && [ "${rank_of[$g]}" = "$mine" ] && path=$g && break
        done
      fi
    fi
    [ -n "$path" ] || continue # not in the tree: system or generated
    theirs=${rank_of[$path]}
    [ "$theirs" = "$mine" ] || [ "${levels[$theirs]}" -lt "${levels[$mine]}" ] ||
      upward+="$f: includes $path (${folders[$theirs]} is not before ${folders[$mine]})"$'\n'
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$src/$f")
done
check "includes of a later (or side by side) folder" "$upward"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
