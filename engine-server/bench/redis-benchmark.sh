#!/usr/bin/env bash
# Runs redis-benchmark (SET and GET) against Varve's server and a local redis-server on the same machine,
# on loopback, and appends a markdown table to docs/benchmarks.md.
#
# Usage: engine-server/bench/redis-benchmark.sh [requests]      (default 200000; pipelined runs use 5x)
# Needs redis-server and redis-benchmark (Debian: apt-get install -y redis-server redis-tools).
# Both servers log to AOF with appendfsync everysec, so durability settings match.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-200000}"
varve_port="${VARVE_BENCH_PORT:-16379}"
redis_port="${REDIS_BENCH_PORT:-16380}"
work="$(mktemp -d /tmp/varve-bench.XXXXXX)"
out="$root/docs/benchmarks.md"

for tool in redis-server redis-benchmark redis-cli; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y redis-server redis-tools" >&2; exit 1; }
done
# 1000 clients need 1000+ descriptors on both sides.
ulimit -n 65536 2>/dev/null || ulimit -n 4096 2>/dev/null || true

pids=()
cleanup() {
  redis-cli -p "$varve_port" shutdown >/dev/null 2>&1 || true
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

wait_ready() {
  local port="$1"
  for _ in $(seq 1 300); do
    if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ]; then
      return 0
    fi
    sleep 0.1 # polling a child process from a shell script; not used in tests
  done
  echo "server on port $port did not come up" >&2
  exit 1
}

mkdir -p "$work/varve" "$work/redis"
"$root/bin/varve" --port "$varve_port" --dir "$work/varve" --appendfsync everysec >"$work/varve.log" 2>&1 &
pids+=($!)
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly yes \
  --appendfsync everysec --daemonize no --maxclients 10000 >"$work/redis.log" 2>&1 &
pids+=($!)
wait_ready "$varve_port"
wait_ready "$redis_port"
varve_java="$(redis-cli -p "$varve_port" info server | sed -n 's/^java_version://p' | tr -d '\r')"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
configs=("-c 50|-n $requests -c 50" "-c 1000|-n $requests -c 1000" "-c 50 -P 16|-n $((requests * 5)) -c 50 -P 16")
# Let the JIT compile the hot paths first, as JMH's warm-up iterations would: one unmeasured pass of every
# configuration, because each takes paths the others do not (pipelined batches, 1000 connections per loop).
# redis-server needs no warm-up but gets the same passes, so both start the measured runs in the same state.
for port in "$varve_port" "$redis_port"; do
  for config in "${configs[@]}"; do
    # shellcheck disable=SC2086
    redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -r 100000 -q ${config#*|} >/dev/null
  done
done

# Prints "SET-rps GET-rps" for one run.
run() {
  local port="$1"; shift
  redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -r 100000 --csv "$@" 2>/dev/null \
    | awk -F'","' '/^"SET"/{s=$2} /^"GET"/{g=$2} END{gsub(/"/,"",s); gsub(/"/,"",g); print s, g}'
}

declare -A result
for config in "${configs[@]}"; do
  label="${config%%|*}"
  args="${config#*|}"
  # shellcheck disable=SC2086
  result["varve $label"]="$(run "$varve_port" $args)"
  # shellcheck disable=SC2086
  result["redis $label"]="$(run "$redis_port" $args)"
  echo "$label: varve ${result["varve $label"]} | redis ${result["redis $label"]}" >&2
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else print "n/a" }'; }

{
  if [ ! -s "$out" ]; then
    echo "# Benchmarks"
    echo
  fi
  echo
  echo "## redis-benchmark: Varve server vs redis-server ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load average before/after: $load_before / $load_after"
  echo "(a shared machine: other builds may have been running). $(redis-server --version | cut -d' ' -f1-3);"
  echo "Varve on JDK $varve_java via bin/varve (default settings: io-threads min(4, cores))."
  echo "Both on loopback with AOF/WAL and appendfsync everysec; keys from a space of 100000 (-r), 3-byte values;"
  echo "one unmeasured warm-up pass of every configuration first. Command:"
  echo '`redis-benchmark -h 127.0.0.1 -p PORT -t set,get -r 100000 --csv -n N -c C [-P 16]`,'
  echo "N = $requests ($((requests * 5)) pipelined). Requests per second:"
  echo
  echo "| clients | test | Varve | redis-server | Varve / redis |"
  echo "|---|---|---:|---:|---:|"
  for config in "${configs[@]}"; do
    label="${config%%|*}"
    read -r vs vg <<<"${result["varve $label"]}"
    read -r rs rg <<<"${result["redis $label"]}"
    echo "| $label | SET | $vs | $rs | $(ratio "$vs" "$rs") |"
    echo "| $label | GET | $vg | $rg | $(ratio "$vg" "$rg") |"
  done
} >>"$out"
echo "appended to $out" >&2
