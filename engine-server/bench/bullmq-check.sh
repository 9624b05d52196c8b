#!/usr/bin/env bash
# Runs BullMQ (Node) unchanged against bin/varve and against redis-server side by side, and prints per step
# (add and process, retry, delay, ...) PASS or FAIL for each server. The steps are in bullmq-check.mjs.
#
# Usage: engine-server/bench/bullmq-check.sh
# Environment:
#   VARVE_BULLMQ_CACHE  where bullmq and ioredis are installed with npm (default ~/.cache/varve-bullmq; outside
#                       the repository, made on the first run, which needs the npm registry)
#   VARVE_BULLMQ_OUT    where the servers' logs go (default engine-server/target/bullmq-check)
#   VARVE_BULLMQ_ONLY   "varve" or "redis" to run one side only
# Exit status 0 when every step passed on Varve.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${VARVE_BULLMQ_CACHE:-$HOME/.cache/varve-bullmq}"
out="${VARVE_BULLMQ_OUT:-$root/engine-server/target/bullmq-check}"
only="${VARVE_BULLMQ_ONLY:-}"

for tool in node npm redis-cli; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
[ "$only" = varve ] || command -v redis-server >/dev/null || { echo "missing redis-server" >&2; exit 1; }

if [ ! -d "$cache/node_modules/bullmq" ] || [ ! -d "$cache/node_modules/ioredis" ]; then
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{"name":"varve-bullmq-check","private":true}' >"$cache/package.json"
  (cd "$cache" && npm install --no-audit --no-fund --silent bullmq ioredis)
fi
echo "bullmq $(node -p "require('$cache/node_modules/bullmq/package.json').version")," \
  "ioredis $(node -p "require('$cache/node_modules/ioredis/package.json').version")"

work="$(mktemp -d /tmp/varve-bullmq.XXXXXX)"
mkdir -p "$out"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

wait_ready() {
  local port="$1"
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || return 1
    sleep 0.1 # polling a child process from a shell script; not used in tests
  done
  return 1
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# Runs the steps against the server on $1 and keeps their lines in $work/<name>.txt.
check() {
  local name="$1" port="$2"
  timeout -k 5 300 node "$root/engine-server/bench/bullmq-check.mjs" "$port" "$cache" >"$work/$name.txt" 2>&1 || true
}

if [ "$only" != redis ]; then
  port="$(free_port)"
  mkdir -p "$work/varve-data"
  "$root/bin/varve" --port "$port" --dir "$work/varve-data" >"$out/varve-server.log" 2>&1 &
  server_pid=$!
  wait_ready "$port" || { echo "varve did not start; see $out/varve-server.log" >&2; exit 1; }
  check varve "$port"
  stop_server
fi
if [ "$only" != varve ]; then
  port="$(free_port)"
  mkdir -p "$work/redis-data"
  redis-server --port "$port" --bind 127.0.0.1 --dir "$work/redis-data" --save "" --appendonly no \
    --daemonize no >"$out/redis-server.log" 2>&1 &
  server_pid=$!
  wait_ready "$port" || { echo "redis-server did not start; see $out/redis-server.log" >&2; exit 1; }
  check redis "$port"
  stop_server
fi

# Side by side: one row per step, the Varve result and the redis-server result.
step_result() { # file step
  [ -f "$1" ] || { echo "-"; return; }
  sed -n "s/^\(PASS\|FAIL\) $2\b\(.*\)/\1\2/p" "$1" | head -n1 | grep . || echo "-"
}
steps="$( (cat "$work/varve.txt" "$work/redis.txt" 2>/dev/null || true) | sed -n 's/^\(PASS\|FAIL\) \([A-Za-z]*\).*/\2/p' \
  | awk '!seen[$0]++')"
printf '%-16s | %-50s | %s\n' step varve redis-server
for step in $steps; do
  printf '%-16s | %-50s | %s\n' "$step" "$(step_result "$work/varve.txt" "$step")" \
    "$(step_result "$work/redis.txt" "$step")"
done
for name in varve redis; do
  [ -f "$work/$name.txt" ] || continue
  grep -vE '^(PASS|FAIL) ' "$work/$name.txt" | sed "s/^/$name: /" || true
done
[ "$only" = redis ] || ! grep -q '^FAIL ' "$work/varve.txt"
