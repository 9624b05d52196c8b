#!/usr/bin/env bash
# Replicated SET throughput and p99: a 3-member Varve cluster on loopback (bin/varve-cluster) against one
# standalone Varve with appendfsync always; then failover time, from kill -9 of the leader to the first
# write a survivor acknowledges.
#
# Usage: engine-server/bench/replication-benchmark.sh [requests] [failovers]
#   requests: per redis-benchmark run (default 100000; the pipelined run uses 5x); failovers: rounds (default 3)
# The fsyncs per SET column counts the leader's Raft log syncs (each member syncs its own log as well) and the
# single node's write-ahead log syncs, over the measured run.
# Builds nothing: expects engine-server/target/varve-server.jar
#   (mvn -B -q -o -DskipTests package -pl engine-server -am). Needs redis-benchmark and redis-cli.
# redis-benchmark talks to the leader directly (found with INFO replication), not in --cluster mode: with one
# shard and one leader that is the same connection a cluster client ends up on.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-100000}"
failovers="${2:-3}"
base="${VARVE_REPL_BENCH_PORT:-17101}"     # cluster RESP ports base+0..2, Raft ports base+10000..
single_port="$((base + 20))"
single_metrics="$((base + 21))"
work="$(mktemp -d /tmp/varve-repl-bench.XXXXXX)"
cluster=("$root/bin/varve-cluster")

[ -f "$root/engine-server/target/varve-server.jar" ] || {
  echo "build the server first: mvn -B -q -o -DskipTests package -pl engine-server -am" >&2; exit 1; }
for tool in redis-benchmark redis-cli; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y redis-tools" >&2; exit 1; }
done

single_pid=""
cleanup() {
  "${cluster[@]}" stop --dir "$work/cluster" --port "$base" >/dev/null 2>&1 || true
  if [ -n "$single_pid" ]; then
    kill "$single_pid" 2>/dev/null || true
    wait "$single_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# The RESP port of the member that says role:master and is ready (a SET answers OK), or nothing.
leader_port() {
  local p
  for i in 0 1 2; do
    p=$((base + i))
    if timeout 1 redis-cli -p "$p" info replication 2>/dev/null | tr -d '\r' | grep -qx 'role:master'; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

wait_for_leader() {
  local p
  for _ in $(seq 1 600); do
    if p="$(leader_port)" && [ "$(timeout 2 redis-cli -p "$p" set bench:ready 1 2>/dev/null)" = "OK" ]; then
      echo "$p"
      return 0
    fi
    sleep 0.1 # polling child processes from a shell script
  done
  echo "no leader elected" >&2
  exit 1
}

wait_ready() {
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$1" ping 2>/dev/null)" = "PONG" ] && return 0
    sleep 0.1
  done
  echo "server on port $1 did not come up" >&2
  exit 1
}

# The fsyncs a server has made for acknowledged writes so far: a replicated member's Raft log syncs (INFO
# replication, raft_log_syncs), or the single node's write-ahead log syncs (its metrics endpoint). "-" if the
# server does not report them.
syncs() {
  local port="$1" value=""
  if [ "$port" = "$single_port" ]; then
    value="$(curl -s "http://127.0.0.1:$single_metrics/metrics" | awk '/^varve_wal_syncs/ { print $NF; exit }')"
  else
    value="$(redis-cli -p "$port" info replication | tr -d '\r' | awk -F: '$1 == "raft_log_syncs" { print $2 }')"
  fi
  echo "${value:--}"
}

# Syncs per request between two readings, or "-".
per_request() {
  if [ "$1" = "-" ] || [ "$2" = "-" ]; then echo "-"; else awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.3f", (b - a) / n }'; fi
}

# Prints "rps p50_ms p99_ms" of one SET run (redis-benchmark --csv: test,rps,avg,min,p50,p95,p99,max).
set_run() {
  local port="$1"
  shift
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -r 100000 --csv "$@" | tr -d '"' \
    | awk -F, '$1 == "SET" { print $2, $5, $7 }'
}

# Runs both configurations against one server, after one unmeasured pass of each (JIT warm-up).
measure() {
  local name="$1" port="$2"
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -r 100000 -q -n $((requests / 5)) -c 50 >/dev/null
  redis-benchmark -h 127.0.0.1 -p "$port" -t set -r 100000 -q -n "$requests" -c 50 -P 16 >/dev/null
  local before after
  before="$(syncs "$port")"
  read -r rps p50 p99 < <(set_run "$port" -n "$requests" -c 50)
  after="$(syncs "$port")"
  echo "| $name | -c 50 | $rps | $p50 | $p99 | $(per_request "$before" "$after" "$requests") |"
  before="$after"
  read -r rps p50 p99 < <(set_run "$port" -n $((requests * 5)) -c 50 -P 16)
  after="$(syncs "$port")"
  echo "| $name | -c 50 -P 16 | $rps | $p50 | $p99 | $(per_request "$before" "$after" $((requests * 5))) |"
}

echo "# $(date -u '+%F %T UTC'); $(uptime); $requests requests per run (x5 pipelined)"
echo
echo "| server | clients | SET/s | p50 ms | p99 ms | fsyncs per SET |"
echo "|---|---|---:|---:|---:|---:|"

"${cluster[@]}" start --dir "$work/cluster" --port "$base" --groups 0 >/dev/null
leader="$(wait_for_leader)"
measure "3-member cluster (leader)" "$leader"

mkdir -p "$work/single"
"$root/bin/varve" --port "$single_port" --dir "$work/single" --appendfsync always --metrics-port "$single_metrics" \
  >"$work/single.log" 2>&1 &
single_pid=$!
wait_ready "$single_port"
measure "single node, appendfsync always" "$single_port"
kill "$single_pid"
wait "$single_pid" 2>/dev/null || true
single_pid=""

# Failover: kill -9 the leader, then SET round robin on the survivors (each attempt bounded by 1 s) until one
# answers OK. A follower answers MOVED (to the dead leader) or CLUSTERDOWN until it learns of a new leader,
# and the new leader TRYAGAIN until it is ready; only OK counts.
echo
echo "| failover | killed | new leader | ms from kill -9 to first acknowledged SET | attempts |"
echo "|---|---|---|---:|---:|"
for round in $(seq 1 "$failovers"); do
  leader="$(wait_for_leader)"
  index=$((leader - base))
  pid="$(cat "$work/cluster/node-$index/varve.pid")"
  survivors=()
  for i in 0 1 2; do
    [ "$i" -ne "$index" ] && survivors+=($((base + i)))
  done
  start="$(now_ms)"
  kill -9 "$pid"
  attempts=0
  acked=""
  while [ -z "$acked" ]; do
    for p in "${survivors[@]}"; do
      attempts=$((attempts + 1))
      if [ "$(timeout 1 redis-cli -p "$p" set failover:key "$round" 2>/dev/null)" = "OK" ]; then
        acked="$p"
        break
      fi
    done
    if [ $(($(now_ms) - start)) -gt 60000 ]; then
      echo "no write acknowledged within 60 s of the kill" >&2
      exit 1
    fi
  done
  echo "| $round | $leader | $acked | $(($(now_ms) - start)) | $attempts |"
  # Bring the killed member back as a follower before the next round, so every round starts with three.
  "${cluster[@]}" start --dir "$work/cluster" --port "$base" --groups 0 >/dev/null
  wait_ready "$leader"
done
