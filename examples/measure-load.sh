#!/usr/bin/env bash
# Measures throughput and latency of K concurrent clients on every store of each suite, in each
# language, at each B given (default: the spec's load sizes), and prints the tables:
#   examples/measure-load.sh [B ...]
#   examples/measure-load.sh --publish [B ...]   also copies the figures into docs/sample-results
#                                                 and rewrites the READMEs' tables and charts
# Environment: BENCHMARK_LANGUAGES (default rust,csharp), BENCHMARK_BACKEND (redis|doublets),
# BENCHMARK_SERVERS (e.g. redis,garnet), REDIS_URL, BENCHMARK_ALLOW_FLUSH, as for the bench.
# redis-benchmark (from redis-server's package) runs beside Rust's server cells. BENCHMARK_ROUND
# (default 1) says which of the spec's `publish.load_runs` this is. The figures of each language
# and B go to target/results/load-<time>/load-<language>-b<B>-r<round>.json; a failed size stops
# the run and publishes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

publish=
if [ "${1:-}" = --publish ]; then publish=1; shift; fi
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
languages=${BENCHMARK_LANGUAGES:-rust,csharp}
IFS=, read -ra language_list <<< "$languages"
for language in "${language_list[@]}"; do
  case $language in
    rust) ;;
    csharp) command -v dotnet >/dev/null || { echo "error: dotnet is not installed: install the .NET 10 SDK (https://dot.net)" >&2; exit 1; } ;;
    *) echo "error: BENCHMARK_LANGUAGES=$languages: \"$language\" is not rust or csharp" >&2; exit 1 ;;
  esac
done

say "building the load measurement"
cargo build --release -q -p redis-vs-doublets --bin load
load=target/release/load
if [[ ,$languages, == *,csharp,* ]]; then
  dotnet build -c Release -v q -nologo csharp/RedisVSDoublets >/dev/null
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || mapfile -t sizes < <("$load" --sizes)

results=target/results/load-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$results"
for b in "${sizes[@]}"; do
  for language in "${language_list[@]}"; do
    say "$language, B=$b"
    file="$PWD/$results/load-$language-b$b-r${BENCHMARK_ROUND:-1}.json"
    case $language in
      rust) BENCHMARK_RESULTS="$file" "$load" "$b" ;;
      csharp) BENCHMARK_RESULTS="$file" dotnet run -c Release --no-build --project csharp/RedisVSDoublets -- --load "$b" ;;
    esac
  done
done
say "figures in $results"

if [ -n "$publish" ]; then
  for file in "$results"/load-*.json; do
    # A language, B and round measured again replace their earlier figures (a file from before
    # rounds were recorded is round 1).
    stem=$(basename "$file" .json)
    [[ $stem == *-r1 ]] && rm -f "docs/sample-results/${stem%-r1}.json"
    rm -f "docs/sample-results/$stem.json" "docs/sample-results/$stem"-*.json
    cp "$file" docs/sample-results/
  done
  say "updating README.md, README.ru.md and docs/charts from docs/sample-results"
  cargo run -q --release -p report -- docs/sample-results
fi
