#!/usr/bin/env bash
# Checks that both doublets stores stay correct at the largest size the workflow schedules:
# loads B point links (and B keys, queue entries and members), checks every link, index, key and
# member against the model, runs each operation's checked iteration and one measured iteration,
# and checks everything again after each. Nothing is timed for publication (Criterion's test mode).
#   experiments/check-full-size.sh          B = 1,000,000, N = 1,000
#   experiments/check-full-size.sh 10000000 B = 10,000,000 (needs a few GiB of memory and time)
set -euo pipefail
cd "$(dirname "$0")/../rust"
background=${1:-1000000}
[[ $background =~ ^[0-9]+$ ]] || { echo "usage: $0 [B]   (default 1000000)" >&2; exit 2; }
echo "checking both doublets stores at B=$background, N=1000" >&2
BENCHMARK_BACKEND=doublets BENCHMARK_BACKGROUND_LINKS=$background BENCHMARK_LINKS=1000 \
  cargo bench -q --bench bench -- --test
echo "both doublets stores held every link, key, queue entry and member at B=$background" >&2
