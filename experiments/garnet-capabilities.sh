#!/usr/bin/env bash
# What Garnet (the .NET tool garnet-server, pinned in .config/dotnet-tools.json) offers the
# benches, asked the way the benches will ask any RESP server (issue 13): INFO server for its name
# and version, COMMAND INFO for FCALL (functions) and EVALSHA (scripts), and whether a script may
# touch keys it does not declare, which redis/links.lua does. Starts a disposable Garnet on a free
# loopback port with --lua and stops it on any exit; touches no other server.
#   experiments/garnet-capabilities.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dotnet >/dev/null || { echo "error: install the .NET 10 SDK" >&2; exit 1; }
command -v redis-cli >/dev/null || { echo "error: redis-cli comes with redis-server (apt-get install redis-server)" >&2; exit 1; }
dotnet tool restore >/dev/null
port=$((20000 + RANDOM % 20000))
while redis-cli -p "$port" ping >/dev/null 2>&1; do port=$((20000 + RANDOM % 20000)); done
setsid dotnet tool run garnet-server --port "$port" --bind 127.0.0.1 --lua >/dev/null 2>&1 &
garnet=$!
# Garnet has no SHUTDOWN: stop the process group it runs in.
trap 'kill -- "-$garnet" 2>/dev/null || true; wait "$garnet" 2>/dev/null || true' EXIT
for _ in $(seq 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
ask() { redis-cli -p "$port" "$@" 2>&1 | tr '\n' ' '; }
echo "server:          $(ask INFO server | grep -o 'garnet_version:[^ ]*\|server_name:[^ ]*' | tr '\r\n' '  ')"
echo "FCALL:           $(ask COMMAND INFO FCALL) (empty: no functions)"
echo "EVALSHA:         $(ask COMMAND INFO EVALSHA | cut -c1-60)"
echo "FUNCTION LIST:   $(ask FUNCTION LIST)"
sha=$(redis-cli -p "$port" SCRIPT LOAD "return redis.call('INCR', KEYS[1])")
echo "SCRIPT LOAD:     $sha"
echo "EVALSHA:         $(ask EVALSHA "$sha" 1 rvd:probe)"
echo "undeclared key:  $(ask EVAL "return redis.call('HSET', 'rvd:undeclared', 'a', '1')" 0)"
echo "MULTI/EXEC:      $(printf 'MULTI\nINCR rvd:probe\nINCR rvd:probe\nEXEC\n' | redis-cli -p "$port" 2>&1 | tr '\n' ' ')"
