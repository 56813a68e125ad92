#!/bin/sh
# Runs the Rust tests RUNS times (default 10) beside a busy machine: one busy loop per CPU, so that
# every test thread competes for a CPU as on a loaded CI runner. A test that assumes an idle
# machine (a time window, a thread that gets the CPU soon) fails here. Every run's output is kept
# in target/test-under-load/; the summary names each failed test and how often it failed.
#   scripts/test-under-load.sh [RUNS]
set -eu
runs=${1:-10}
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets --release --no-run -q
logs=target/test-under-load
rm -rf "$logs" && mkdir -p "$logs"
hogs=""
trap 'kill $hogs 2>/dev/null || true' EXIT INT TERM
for _ in $(seq "$(nproc)"); do
  sh -c 'while :; do :; done' &
  hogs="$hogs $!"
done
failed=0
for k in $(seq "$runs"); do
  if cargo test --workspace --all-targets --release --no-fail-fast -q >"$logs/run-$k.log" 2>&1; then
    echo "run $k of $runs: passed"
  else
    failed=$((failed + 1))
    echo "run $k of $runs: failed ($logs/run-$k.log):"
    grep -E -- "--- FAILED|panicked at" "$logs/run-$k.log" | sed 's/^/  /' | head -10
  fi
done
echo "$failed of $runs runs failed beside $(nproc) busy loops"
if [ "$failed" -gt 0 ]; then
  echo "failed tests, with how many runs each failed in:"
  grep -h -- "--- FAILED" "$logs"/run-*.log | sort | uniq -c | sort -rn
  exit 1
fi
