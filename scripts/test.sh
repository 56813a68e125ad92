#!/usr/bin/env bash
# Every test of the project, as CI runs them: the Rust unit and integration tests (against a real
# redis-server they start), and each bench once in Criterion's test mode.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v redis-server >/dev/null || {
  echo "error: redis-server is not installed (Debian/Ubuntu: sudo apt-get install -y redis-server)" >&2
  exit 1
}

echo "== Rust tests" >&2
cargo test --workspace --all-targets --release
