#!/usr/bin/env bash
# Measures throughput and latency of K concurrent clients on every store of each suite, at each B
# given (default: the spec's load sizes), and prints the tables:
#   examples/measure-load.sh [B ...]
#   examples/measure-load.sh --publish [B ...]   also copies the figures into docs/sample-results
#                                                 and rewrites the READMEs' tables and charts
# Environment: BENCHMARK_BACKEND (redis|doublets), BENCHMARK_SERVERS (e.g. redis,garnet), REDIS_URL,
# BENCHMARK_ALLOW_FLUSH, as for the bench. redis-benchmark (from redis-server's package) runs beside
# the server cells. The figures of each B go to target/results/load-<time>/load-b<B>.json; a failed
# size stops the run and publishes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

publish=
if [ "${1:-}" = --publish ]; then publish=1; shift; fi
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

say "building the load measurement"
cargo build --release -q -p redis-vs-doublets --bin load
load=target/release/load
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || mapfile -t sizes < <("$load" --sizes)

results=target/results/load-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$results"
for b in "${sizes[@]}"; do
  say "B=$b"
  BENCHMARK_RESULTS="$PWD/$results/load-b$b.json" "$load" "$b"
done
say "figures in $results"

if [ -n "$publish" ]; then
  cp "$results"/load-b*.json docs/sample-results/
  say "updating README.md, README.ru.md and docs/charts from docs/sample-results"
  cargo run -q --release -p report -- docs/sample-results
fi
