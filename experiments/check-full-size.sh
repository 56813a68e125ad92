#!/usr/bin/env bash
# Checks that every store stays correct at the largest size the workflow schedules: both doublets
# stores and each server in its three modes (disposable servers of the kinds BENCHMARK_SERVERS
# names, Redis by default, unless REDIS_URL names one) load B point links (and B keys, queue
# entries and members); every link, index, key and member is checked against the model; each
# operation runs its checked iteration and one measured iteration, and everything is checked
# again after each. Nothing is timed for publication (Criterion's test mode).
#   experiments/check-full-size.sh            B = 1,000,000, N = 1,000, every store
#   experiments/check-full-size.sh 10000000   B = 10,000,000 (needs a few GiB of memory and time)
#   BENCHMARK_BACKEND=doublets experiments/check-full-size.sh    one family only
#   BENCHMARK_SERVERS=redis,garnet experiments/check-full-size.sh  Garnet too (13.5 min here)
set -euo pipefail
cd "$(dirname "$0")/../rust"
background=${1:-1000000}
[[ $background =~ ^[0-9]+$ ]] || { echo "usage: $0 [B]   (default 1000000)" >&2; exit 2; }
# The servers are those BENCHMARK_SERVERS names (default: Redis), each in its three modes.
servers=${BENCHMARK_SERVERS:-redis}
stores="both doublets stores and ${servers//,/ and } in three modes each"
case ${BENCHMARK_BACKEND:-} in
  doublets) stores="both doublets stores" ;;
  redis) stores="${servers//,/ and } in three modes each" ;;
esac
echo "checking $stores at B=$background, N=1000" >&2
BENCHMARK_BACKGROUND_LINKS=$background BENCHMARK_LINKS=1000 \
  cargo bench -q --bench bench -- --test
echo "$stores held every link, key, queue entry and member at B=$background" >&2
