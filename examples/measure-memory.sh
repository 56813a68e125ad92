#!/usr/bin/env bash
# Measures what every store holds in memory for each suite's background, at each B given (default:
# the spec's memory sizes, 1,000 to 10,000,000), and prints the tables:
#   examples/measure-memory.sh [B ...]
#   examples/measure-memory.sh --publish [B ...]   also copies the figures into docs/sample-results
#                                                   and rewrites the READMEs' tables and charts
# Environment: BENCHMARK_BACKEND (redis|doublets), REDIS_URL, BENCHMARK_ALLOW_FLUSH, as for the bench.
# The figures of each B go to target/results/memory-<time>/memory-b<B>.json; a failed size stops the
# run and publishes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

publish=
if [ "${1:-}" = --publish ]; then publish=1; shift; fi
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

say "building the memory measurement"
cargo build --release -q -p redis-vs-doublets --bin memory
memory=target/release/memory
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || mapfile -t sizes < <("$memory" --sizes)

results=target/results/memory-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$results"
for b in "${sizes[@]}"; do
  say "B=$b"
  BENCHMARK_RESULTS="$PWD/$results/memory-b$b.json" "$memory" "$b"
done
say "figures in $results"

if [ -n "$publish" ]; then
  cp "$results"/memory-b*.json docs/sample-results/
  say "updating README.md, README.ru.md and docs/charts from docs/sample-results"
  cargo run -q --release -p report -- docs/sample-results
fi
