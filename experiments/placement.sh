#!/usr/bin/env bash
# Which placement of server and bench on this machine's CPUs gives the steadiest rounds: the same
# cells, in Rust and in C# (LANGUAGES), measured ROUNDS times under each placement, each round's median kept, and for every
# cell the spread between rounds (half their range, relative to their median) printed per
# placement. The placements, on a machine of two CPUs or more:
#   unpinned  the disposable server, the bench and its client anywhere (the published runs)
#   shared    server and bench pinned to one CPU (BENCHMARK_CPUS=1): a round trip stays on it
#   split     the server alone on CPU 1 and the bench on CPU 0, as server benchmarks place them;
#             the server is one this script starts pinned, reached through REDIS_URL
# Nothing here is published as a result: it backs the method's choice of placement.
#   experiments/placement.sh      5 rounds of links create and each_concrete, every store (C#: its
#                                 default client), in both languages: about 20 minutes
#   ROUNDS=3 LANGUAGES=rust FILTER='^kv_get/' experiments/placement.sh   (a regex on operation/backend)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
languages=${LANGUAGES:-rust,csharp}
# C#'s other clients name their cells Redis_Pipeline_FreeRedis: the default client's stand alone.
filter=${FILTER:-^(create|each_concrete)/(Doublets_[A-Za-z]+_[A-Za-z]+|Redis_[A-Za-z]+)$}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "error: ROUNDS=$rounds is not a whole number from 1 to 99" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "error: the split placement needs two CPUs; this machine has $(nproc)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "error: taskset is not installed (apt-get install util-linux)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "error: redis-server is not installed (apt-get install redis-server)" >&2; exit 1; }

out=target/placement
rm -rf "$out"
mkdir -p "$out"
export BENCHMARK_BACKGROUND_LINKS=${BENCHMARK_BACKGROUND_LINKS:-1000} BENCHMARK_LINKS=${BENCHMARK_LINKS:-100}
IFS=, read -ra language_list <<< "$languages"
for language in "${language_list[@]}"; do
  case $language in
    rust) cargo bench --bench bench --no-run -q -p redis-vs-doublets ;;
    csharp) dotnet build -c Release -v quiet csharp/RedisVSDoublets >/dev/null ;;
    *) echo "error: LANGUAGES=$languages: \"$language\" is not rust or csharp" >&2; exit 2 ;;
  esac
done

server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c 1 redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
  >"$out/split-server.log" 2>&1 &
server=$!
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

# One round of one language's cells: the language, its result file, then the command that
# places it.
bench() {
  local language=$1 file=$2
  shift 2
  case $language in
    rust) env BENCHMARK_RESULTS="$file" "$@" cargo bench -q -p redis-vs-doublets --bench bench -- \
      --output-format bencher "$filter" >/dev/null ;;
    csharp) env BENCHMARK_RESULTS="$file" "$@" dotnet run -c Release --no-build \
      --project csharp/RedisVSDoublets -- --filter "$filter" >/dev/null ;;
  esac
}
for round in $(seq "$rounds"); do
  # The placements take turns within a round, so that drift over time touches each alike.
  for language in "${language_list[@]}"; do
    for placement in unpinned shared split; do
      echo "round $round of $rounds: $language, $placement" >&2
      file="$PWD/$out/$placement-$language-r$round.txt"
      case $placement in
        unpinned) bench "$language" "$file" ;;
        shared) bench "$language" "$file" taskset -c 1 ;;
        split) bench "$language" "$file" env REDIS_URL="redis://127.0.0.1:$port/0" taskset -c 0 ;;
      esac
    done
  done
done

# Per cell and placement: the median of the rounds' medians and half their range, relative to it
# (plain POSIX awk: the values arrive sorted).
for file in "$out"/*-r*.txt; do
  name=$(basename "$file" .txt)
  placement=${name%%-*}
  language=$(echo "$name" | cut -d- -f2)
  awk -v p="$placement" -v l="$language" '/^test / && / ns\/iter/ { v = $5; gsub(",", "", v); print l ":" $2, p, v }' "$file"
done | sort -k1,1 -k2,2 -k3,3n | awk '
  function flush() {
    if (k == 0) return
    median = (k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2)
    figure[cell, place] = sprintf("%12.0f ns ±%3.0f%%", median, 50 * (v[k] - v[1]) / median)
    k = 0
  }
  { if ($1 != cell || $2 != place) { flush(); cell = $1; place = $2; cells[cell] = 1 } v[++k] = $3 }
  END {
    flush()
    printf "%-44s %20s %20s %20s\n", "cell: median, ± half the range", "unpinned", "shared (1 CPU)", "split (server on 1)"
    for (c in cells) {
      line = sprintf("%-44s", c)
      line = line sprintf(" %20s %20s %20s", figure[c, "unpinned"], figure[c, "shared"], figure[c, "split"])
      print line
    }
  }' | (read -r header; echo "$header"; sort) | tee "$out/summary.txt"
