#!/usr/bin/env bash
# Six rounds of a few cells (update, each_identity, kv_get, set_add; Doublets and Redis), at the
# sampling spec/benchmarks.yaml declares, into the folder $1: how the rounds-vs-sampling comparison
# in the method page was measured (B: the spec's 0.5 s warm-up and 1 s measurement; A: the same run
# with the spec's two `sampling` lines set to 1 s and 2 s, then restored).
set -euo pipefail
out=$(realpath -m "$1")
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
for k in 1 2 3 4 5 6; do
  BENCHMARK_BACKGROUND_LINKS=1000 BENCHMARK_LINKS=100 BENCHMARK_SERVERS=redis BENCHMARK_ROUND=$k \
  BENCHMARK_RESULTS="$out/r$k.txt" cargo bench -q -p redis-vs-doublets --bench bench -- \
    --output-format bencher 'kv_get/|set_add/|each_identity/|update/' > "$out/r$k.log" 2>&1
  grep "took" "$out/r$k.log" | tail -1
done
