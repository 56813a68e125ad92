#!/usr/bin/env bash
# Measures again, in pieces, what the published results lack for the checkout's code: after a
# change to measured code the READMEs keep the older figures, labelled, until this brings them up
# to date. The pieces (a language, size and round; a load run; a memory run) and their estimates
# come from the spec's `publish` plan against docs/sample-results:
#   examples/remeasure.sh --plan            lists what is left, with estimates; measures nothing
#   examples/remeasure.sh [--budget MIN]    measures the most valuable pieces that fit in MIN
#                                           minutes (default: all of them), one at a time
#   examples/remeasure.sh --commit ...      also commits each finished piece
#   examples/remeasure.sh --reproduce B     measures one more round of both languages at the
#                                           published size B into target/reproduce-B (nothing is
#                                           published) and prints how many of its cells and
#                                           Doublets-vs-Redis ratios lie inside the published
#                                           intervals
# Each finished piece goes at once into docs/sample-results (named for the code it measured) and
# the READMEs are made again from there; a set of the checkout's code replaces the older one of its
# language and size once it has as many complete rounds; docs/sample-results/ledger.tsv gets a line
# with the time it took against its estimate, and a piece over 1.3× its estimate stops the run once
# kept (fix the estimate or the cost first). Killed at any moment (SIGKILL included),
# it loses at most the piece in progress and leaves no process behind; run again, it continues
# where it stopped. Environment: REDIS_URL and BENCHMARK_ALLOW_FLUSH, as for the bench.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 [--plan] [--budget MINUTES] [--commit] | --reproduce B" >&2; exit 2; }
plan_only= budget=() commit= reproduce=
while [ $# -gt 0 ]; do
  case $1 in
    --plan) plan_only=1 ;;
    --budget) [ $# -ge 2 ] || usage; budget=(--budget "$2"); shift ;;
    --commit) commit=1 ;;
    --reproduce) [ $# -ge 2 ] || usage; reproduce=$2; shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown argument $1" >&2; usage ;;
  esac
  shift
done

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
need() { command -v "$1" >/dev/null || { echo "error: $1 is not installed: $2" >&2; exit 1; }; }
need cargo "install Rust from https://rustup.rs"

[ -z "$reproduce" ] || [ -z "$plan_only$commit${budget[*]}" ] || { echo "error: --reproduce measures one round alone: no --plan, --budget or --commit beside it" >&2; usage; }
cargo build --release -q -p report --bin report --bin plan --bin reproduce
plan=target/release/plan
report=target/release/report
results=docs/sample-results

if [ -n "$plan_only" ]; then
  "$plan" "${budget[@]}" "$results" >/dev/null
  exit 0
fi

# What is left, before anything is built: a budget too small for any piece is refused here.
if [ -n "$reproduce" ]; then
  pieces=$("$plan" --reproduce "$reproduce" "$results")
  kept=target/reproduce-$reproduce
  rm -rf "$kept" && mkdir -p "$kept"
else
  pieces=$("$plan" "${budget[@]}" "$results")
fi
if [ -z "$pieces" ]; then
  say "nothing to measure now: the plan above says what is left, and when"
  exit 0
fi
if [ -n "$commit" ] && ! git diff --quiet HEAD -- "$results" README.md README.ru.md docs; then
  echo "error: --commit: docs/, README.md or README.ru.md have uncommitted changes; commit them first" >&2
  exit 1
fi

kinds=$(cut -f4 <<< "$pieces" | sort -u)
need redis-server "apt-get install -y redis-server (Debian, Ubuntu), or set REDIS_URL"
if grep -q csharp <<< "$kinds"; then need dotnet "install the .NET 10 SDK (https://dot.net)"; fi
say "building what the pieces measure (nothing is built once measuring starts)"
grep -q '^bench-rust$' <<< "$kinds" && cargo bench --bench bench --no-run -q -p redis-vs-doublets
grep -Eq '^(load-rust|memory)$' <<< "$kinds" && cargo build --release -q -p redis-vs-doublets --bin load --bin memory
grep -q csharp <<< "$kinds" && dotnet build -c Release -v quiet -nologo csharp/RedisVSDoublets >/dev/null
# The READMEs as the report makes them of what is kept: a run killed while it wrote them is whole again.
[ -n "$reproduce" ] || "$report" "$results" 2>&1 | tail -1 >&2

# A piece runs in its own session, so that Ctrl-C or SIGTERM to this script reaches it and all it
# started (cargo and the bench, its servers) as SIGTERM. A watchdog in a session of its own ends
# the piece too when this script dies without its traps running (SIGKILL): no bench or server
# outlives it.
child= watchdog=
stop_piece() {
  [ -z "$watchdog" ] || kill "$watchdog" 2>/dev/null || true
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  child= watchdog=
}
trap 'stop_piece' EXIT
trap 'echo "interrupted: the piece in progress is lost, every finished one is kept" >&2; stop_piece; exit 130' INT
trap 'echo "terminated: the piece in progress is lost, every finished one is kept" >&2; stop_piece; exit 143' TERM

run_piece() {
  setsid "$@" &
  child=$!
  # The whole session: the bench starts its servers in process groups of their own.
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
    pkill -TERM -s "$2" || exit 0
    for _ in $(seq 15); do pgrep -s "$2" >/dev/null || exit 0; sleep 1; done
    pkill -KILL -s "$2"' watchdog "$$" "$child" </dev/null >/dev/null 2>&1 &
  watchdog=$!
  local status=0
  wait "$child" || status=$?
  kill "$watchdog" 2>/dev/null || true
  child= watchdog=
  return "$status"
}

work=target/remeasure
mkdir -p "$work"
count=$(wc -l <<< "$pieces")
done_count=0
began=$SECONDS
while IFS=$'\t' read -r id minutes file kind size env_list; do
  done_count=$((done_count + 1))
  read -ra env_vars <<< "${env_list//$'\t'/ }"
  say "piece $done_count of $count: $id (estimate $minutes min)"
  partial="$PWD/$work/$file"
  rm -f "$partial"
  start=$SECONDS started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  case $kind in
    bench-rust) run_piece env "${env_vars[@]}" BENCHMARK_RESULTS="$partial" \
      cargo bench -q -p redis-vs-doublets --bench bench -- --output-format bencher ;;
    bench-csharp) run_piece env "${env_vars[@]}" BENCHMARK_RESULTS="$partial" \
      dotnet run -c Release --no-build --project csharp/RedisVSDoublets ;;
    load-rust) run_piece env "${env_vars[@]}" BENCHMARK_RESULTS="$partial" target/release/load "$size" ;;
    load-csharp) run_piece env "${env_vars[@]}" BENCHMARK_RESULTS="$partial" \
      dotnet run -c Release --no-build --project csharp/RedisVSDoublets -- --load "$size" ;;
    memory) run_piece env "${env_vars[@]}" BENCHMARK_RESULTS="$partial" target/release/memory "$size" ;;
    *) echo "error: the plan names an unknown command kind $kind" >&2; exit 1 ;;
  esac
  took=$((SECONDS - start))
  [ -s "$partial" ] || { echo "error: $id wrote no result file" >&2; exit 1; }
  if [ -n "$reproduce" ]; then
    mv "$partial" "$kept/$file"
    say "$id took $((took / 60)) min $((took % 60)) s (estimate $minutes min); kept as $kept/$file"
    continue
  fi
  # Kept at once: the piece is in the committed folder before anything else can fail.
  mv "$partial" "$results/$file"
  # A newer memory or load run replaces the older of its size; a bench set of this code replaces
  # the older set of its language and size once it is as complete.
  case $kind in
    memory | load-*)
      # (a load file from before rounds were recorded is round 1)
      olders=("$results/${id}.json" "$results/${id}"-*.json)
      [[ $id == load-*-r1 ]] && olders+=("$results/${id%-r1}.json")
      for older in "${olders[@]}"; do
        [ -e "$older" ] && [ "$older" != "$results/$file" ] && rm -- "$older"
      done ;;
  esac
  "$plan" --superseded "$results" | while read -r older; do rm -- "$older"; done
  # The ledger of what each kept piece cost, which the method page sums against the estimates.
  ledger=$results/ledger.tsv
  [ -e "$ledger" ] || printf '# started\tpiece\tfile\tseconds\testimated minutes\n' > "$ledger"
  printf '%s\t%s\t%s\t%s\t%s\n' "$started" "$id" "$file" "$took" "$minutes" >> "$ledger"
  "$report" "$results" 2>&1 | tail -1 >&2
  say "$id took $((took / 60)) min $((took % 60)) s (estimate $minutes min); kept as $results/$file"
  if [ -n "$commit" ]; then
    git add -A -- "$results" docs README.md README.ru.md
    git commit -q -m "Re-measure $id at $(git rev-parse --short HEAD): $((took / 60)) min $((took % 60)) s against an estimate of $minutes min"
  fi
  # Over 1.3× its estimate, the estimate or the cost is wrong: fix that before measuring on.
  if awk -v took="$took" -v minutes="$minutes" 'BEGIN { exit !(took > 1.3 * minutes * 60) }'; then
    echo "error: $id took $((took / 60)) min $((took % 60)) s, over 1.3× its estimate of $minutes min: it is kept, but fix the estimate (spec/benchmarks.yaml) or the cost before measuring on" >&2
    exit 1
  fi
  # A round that shared the machine is kept but not published; the pieces after it would share it
  # too, so the run stops here.
  if grep -q '^# machine: busy' "$results/$file"; then
    echo "error: $id ran on a busy machine ($(sed -n 's/^# other_processes: //p' "$results/$file") used by other processes): it is kept in $results but not published; stop what runs beside it and run again" >&2
    exit 1
  fi
done <<< "$pieces"
took=$((SECONDS - began))
if [ -n "$reproduce" ]; then
  say "measured one round at B = $reproduce in $((took / 60)) min $((took % 60)) s; against the published intervals:"
  grep -l '^# machine: busy' "$kept"/* 2>/dev/null | sed 's/^/warning: a busy round, left out: /' >&2 || true
  exec target/release/reproduce "$results" "$kept"
fi
say "measured $count piece(s) in $((took / 60)) min $((took % 60)) s; what is left:"
# (Not `tee /dev/stderr`: where stderr is a file, that opens it again from its start and wipes the
# run's log.)
left=$("$plan" "$results" 2>&1 >/dev/null)
printf '%s\n' "$left" >&2
if grep -q "^  0 piece(s)" <<< "$left"; then
  # The re-measure is finished: every published figure must now be of the checkout's code.
  "$report" --check --require-current "$results"
  say "every published figure is of the checkout's code"
fi
