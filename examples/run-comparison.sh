#!/usr/bin/env bash
# Runs the whole comparison at one size in R rounds, puts its result files into docs/sample-results
# (replacing that size's earlier ones) and updates the READMEs' results from that folder:
#   examples/run-comparison.sh B [N]      (N defaults to 100)
# Environment: BENCHMARK_ROUNDS (default 6, the fewest whose interval for a median reaches 95%;
# even rounds measure the backends in reverse order),
# BENCHMARK_LANGUAGES (default rust,csharp), BENCHMARK_BACKEND (redis|doublets),
# BENCHMARK_SERVERS (default redis; e.g. redis,garnet), BENCHMARK_CPUS (a taskset CPU list: pins
# the benches and the disposable servers they start), REDIS_URL (use that server instead of
# disposable ones). Exits non-zero when any step fails; the report is written
# only after every run succeeded, so a failed or interrupted run leaves the READMEs as they were.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 B [N]   (B background links, N operations per iteration, default 100)" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
background=$1
operations=${2:-100}
# The spec's bounds (B >= 1, 1 <= N <= B), checked here so that a typo costs no build; the benches
# check the sizes again, with the memory they need, before measuring anything.
[[ $background =~ ^[1-9][0-9]{0,17}$ ]] || { echo "error: B=$background is not a whole number from 1 to 10^18" >&2; usage; }
[[ $operations =~ ^[1-9][0-9]{0,17}$ ]] || { echo "error: N=$operations is not a whole number from 1 to 10^18" >&2; usage; }
[ "$operations" -le "$background" ] || { echo "error: N=$operations is more than B=$background (N operations reach at most B links)" >&2; usage; }
languages=${BENCHMARK_LANGUAGES:-rust,csharp}
rounds=${BENCHMARK_ROUNDS:-6}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || { echo "error: BENCHMARK_ROUNDS=$rounds is not a whole number from 1 to 99" >&2; exit 2; }

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
need() {
  command -v "$1" >/dev/null || { echo "error: $1 is not installed: $2" >&2; exit 1; }
}

need cargo "install Rust from https://rustup.rs (or your distribution's rustc and cargo packages)"
IFS=, read -ra language_list <<< "$languages"
for language in "${language_list[@]}"; do
  case $language in
    rust) ;;
    csharp)
      need dotnet "install the .NET 10 SDK (https://dot.net)"
      ;;
    *) echo "error: BENCHMARK_LANGUAGES=$languages: \"$language\" is not rust or csharp" >&2; exit 1 ;;
  esac
done
pin=()
if [ -n "${BENCHMARK_CPUS:-}" ]; then
  need taskset "install util-linux (Debian/Ubuntu: apt-get install util-linux)"
  pin=(taskset -c "$BENCHMARK_CPUS")
fi

child=
results=
# Runs a step in its own process group and waits for it, so that Ctrl-C or SIGTERM to this script
# reaches the step and everything it started (cargo and the bench, dotnet and the harness) as
# SIGTERM: a background step ignores SIGINT, and both benches clean up on SIGTERM.
step() {
  setsid "$@" &
  child=$!
  local status=0
  wait "$child" || status=$?
  child=
  return "$status"
}
stop_step() {
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
    child=
  fi
}
# On any exit: stop the running step and the server this script started, and drop a results
# folder left empty.
trap 'stop_step; [ -z "$results" ] || rmdir "$results" 2>/dev/null || true' EXIT
trap 'echo "interrupted" >&2; stop_step; exit 130' INT
trap 'echo "terminated" >&2; stop_step; exit 143' TERM

export BENCHMARK_BACKGROUND_LINKS=$background BENCHMARK_LINKS=$operations
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=target/results/$stamp
mkdir -p "$results"

for language in "${language_list[@]}"; do
  case $language in
    rust) say "Rust: building the bench"; step cargo bench --bench bench --no-run -q -p redis-vs-doublets ;;
    csharp) say "C#: building the harness"; step dotnet build -c Release -v quiet csharp/RedisVSDoublets ;;
  esac
done

if [ "${BENCHMARK_BACKEND:-}" != doublets ]; then
  # Each bench run starts its own disposable servers (the kinds BENCHMARK_SERVERS names), pinned
  # with it when BENCHMARK_CPUS is set, and stops them when it ends; REDIS_URL names one instead.
  if [ -n "${REDIS_URL:-}" ]; then
    say "the server at REDIS_URL (each bench identifies it)"
  else
    say "disposable servers: ${BENCHMARK_SERVERS:-redis}, started by each bench run${BENCHMARK_CPUS:+, pinned to CPUs $BENCHMARK_CPUS}"
  fi
fi


estimate=$(cargo run -q --release -p report --bin estimate -- "$rounds" "$languages")
began=$SECONDS
for round in $(seq "$rounds"); do
  for language in "${language_list[@]}"; do
    name=$language-b$background-n$operations-r$round.txt
    case $language in
      rust)
        say "Rust: round $round of $rounds at B=$background, N=$operations (progress below)"
        BENCHMARK_ROUND=$round BENCHMARK_RESULTS="$PWD/$results/$name" \
          step "${pin[@]}" cargo bench -q -p redis-vs-doublets --bench bench -- --output-format bencher
        ;;
      csharp)
        say "C#: round $round of $rounds at B=$background, N=$operations"
        BENCHMARK_ROUND=$round BENCHMARK_RESULTS="$PWD/$results/$name" \
          step "${pin[@]}" dotnet run -c Release --no-build --project csharp/RedisVSDoublets
        ;;
    esac
  done
done
took=$((SECONDS - began))
say "measured $rounds round(s) of ${languages} in $((took / 60)) min $((took % 60)) s: $(awk -v t="$took" -v e="$estimate" 'BEGIN { printf "%.2f", t / e }')× the estimate ($((estimate / 60)) min $((estimate % 60)) s of warm-up, sampling, loads and checks)"

# The READMEs are made from the committed folder, never from target/ (which git ignores), so that
# what this writes can be committed as it is and scripts/check-readme.sh passes on a clean clone.
say "replacing this size's result files in docs/sample-results and updating the READMEs from there"
for language in "${language_list[@]}"; do
  rm -f docs/sample-results/"$language-b$background-n$operations"{,-r*}.txt
done
cp "$results"/*.txt docs/sample-results/
allow=()
[ -z "${BENCHMARK_BACKEND:-}" ] || allow=(--allow-missing)
cargo run -q --release -p report -- "${allow[@]}" docs/sample-results
ln -sfn "$stamp" target/results/latest
say "done: commit README.md, README.ru.md and docs/ (result files, charts, results.json) together"
