#!/usr/bin/env bash
# run_fuzzer.sh FUZZER_BINARY SEED_DIR SECONDS SOURCE_DIR
# Seeds SEED_DIR with the small files (< 200 KB) from SOURCE_DIR/tests/fixtures,
# SOURCE_DIR/../shared/corpus and the target's own SOURCE_DIR/tests/fuzz/corpus/NAME
# (e.g. index files for fuzz_stx), then runs the libFuzzer binary for SECONDS
# (RSS capped at 2 GB). Exits non-zero if the fuzzer found a crash.
set -u
fuzzer=$1 seeds=$2 seconds=$3 src=$4
mkdir -p "$seeds"
for dir in "$src/tests/fixtures" "$src/../shared/corpus" "$src/tests/fuzz/corpus/$(basename "$fuzzer")"; do
  [ -d "$dir" ] || continue
  find "$dir" -maxdepth 1 -type f -size -200k ! -name '*.md' -exec cp -f {} "$seeds/" \;
done
artifacts="$seeds/../$(basename "$fuzzer")-artifacts"
mkdir -p "$artifacts"
"$fuzzer" "$seeds" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | tail -n 40
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "run_fuzzer.sh: $(basename "$fuzzer") failed (exit $status); artifacts in $artifacts" >&2
  exit 1
fi
echo "run_fuzzer.sh: $(basename "$fuzzer") ran ${seconds}s without a crash"
