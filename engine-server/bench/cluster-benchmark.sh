#!/usr/bin/env bash
# SET and GET through Varve's cluster mode: 3 nodes on loopback with 1, 3, 12 and 48 Raft groups, one
# replicated group over the whole keyspace (--cluster-groups 0) and a single node (appendfsync always), in
# one run. Reports requests/s and p50/p99, the fsyncs (fsync + fdatasync of every node, counted with strace)
# per acknowledged SET, and the CPU seconds of the busiest node per 10,000 SETs (one node's share of the work:
# what a machine per node would have to carry).
#
# Usage: engine-server/bench/cluster-benchmark.sh [requests] [configurations]
#   requests: per redis-benchmark run (default 100000); configurations: default "1 3 12 48 replicated single"
#   (a number is a cluster of 3 nodes with that many groups)
# Builds nothing: expects engine-server/target/varve-server.jar
#   (mvn -B -q -o -DskipTests package -pl engine-server -am). Needs redis-benchmark, redis-cli, strace, python3.
# With 3 or more groups the leaders are spread over the nodes and redis-benchmark runs with --cluster (it
# routes by CLUSTER SLOTS and needs more than one master); with 1 group and with the replicated group it talks
# to the one leader directly, the connection a cluster client ends up on. Ports are picked free at start.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-100000}"
configs="${2:-1 3 12 48 replicated single}"
work="$(mktemp -d /tmp/varve-cluster-bench.XXXXXX)"

[ -f "$root/engine-server/target/varve-server.jar" ] || {
  echo "build the server first: mvn -B -q -o -DskipTests package -pl engine-server -am" >&2; exit 1; }
for tool in redis-benchmark redis-cli strace python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done

tracers=()   # strace processes, each tracing one node
cleanup() {
  stop_nodes
  rm -rf "$work"
}
# SIGTERM to each node (it flushes and closes), then its tracer exits with it.
stop_nodes() {
  local t j
  for t in "${tracers[@]}"; do
    j="$(node_pid "$t")"
    [ -n "$j" ] && kill "$j" 2>/dev/null || true
  done
  for t in "${tracers[@]}"; do
    wait "$t" 2>/dev/null || true
  done
  tracers=()
}
trap cleanup EXIT

# The node's JVM: bin/varve execs java in the process strace started.
node_pid() { pgrep -P "$1" | head -n1 || true; }

free_ports() {
  python3 -c "import socket
ss=[socket.socket() for _ in range($1)]
[s.bind(('127.0.0.1',0)) for s in ss]
print(' '.join(str(s.getsockname()[1]) for s in ss))"
}

info_field() { timeout 2 redis-cli -p "$1" info "$2" 2>/dev/null | tr -d '\r' | sed -n "s/^$3://p"; }

# Starts one bin/varve under strace (only fsync and fdatasync stop it: --seccomp-bpf), syncs logged to $1.
start_node() {
  local log="$1"
  shift
  strace -f -qq --seccomp-bpf -e trace=fsync,fdatasync -o "$log" "$root/bin/varve" "$@" >"$log.out" 2>&1 &
  tracers+=($!)
}

syncs() { cat "$@" 2>/dev/null | grep -cE '(fsync|fdatasync)\(' || true; }

# CPU seconds (user + system) of each node's JVM, one line each.
cpu_seconds() {
  local t j
  for t in "${tracers[@]}"; do
    j="$(node_pid "$t")"
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$j/stat"
  done
}

wait_until() { # what, command...
  local what="$1"
  shift
  for _ in $(seq 1 1200); do
    "$@" && return 0
    sleep 0.1 # polling child processes from a shell script
  done
  echo "not within 120 s: $what" >&2
  return 1
}

balanced() { # each of the 3 nodes leads groups/3 (or, with 1 group, one node leads it)
  local total=0 led p
  for p in "${ports[@]}"; do
    led="$(info_field "$p" cluster cluster_groups_led)"
    [ -n "$led" ] || return 1
    [ "$1" -ge 3 ] && [ "$led" != "$(($1 / 3))" ] && return 1
    total=$((total + led))
  done
  [ "$total" = "$1" ] && [ "$(info_field "${ports[0]}" cluster cluster_state)" = "ok" ] && preferred_lead
}

# Every group is led by its preferred node: the leader balancer moves a leader there after start, so a
# leader found before it has moved would answer the run's first SETs and then send the rest elsewhere (MOVED).
preferred_lead() {
  timeout 2 redis-cli -p "${ports[0]}" info cluster 2>/dev/null | tr -d '\r' | grep '^cluster_group_' \
    | awk -F, '{ l = p = ""; for (i = 2; i <= NF; i++) { if ($i ~ /^leader=/) l = substr($i, 8);
                       if ($i ~ /^preferred=/) p = substr($i, 11) }
                     if (l == "" || l != p) bad = 1; n++ } END { exit (n == 0 || bad) }'
}

pings() { [ "$(timeout 2 redis-cli -p "$1" ping 2>/dev/null)" = PONG ]; }

leader_port() { # the node leading the one group (or the replicated group) that acknowledges a SET
  local p
  for p in "${ports[@]}"; do
    if [ "$(info_field "$p" replication role)" = "master" ] \
        && [ "$(timeout 2 redis-cli -p "$p" set bench:ready 1 2>/dev/null)" = "OK" ]; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# Prints "rps p50 p99" of one redis-benchmark run (--csv: test,rps,avg,min,p50,p95,p99,max).
bench() {
  local test="$1"
  shift
  redis-benchmark -h 127.0.0.1 "$@" -t "$test" -r 100000 -c 50 --csv | tr -d '"' \
    | awk -F, -v t="${test^^}" '$1 == t { print $2, $5, $7 }'
}

measure() { # name, redis-benchmark target arguments...
  local name="$1"
  shift
  redis-benchmark -h 127.0.0.1 "$@" -t set,get -r 100000 -c 50 -q -n $((requests / 5)) >/dev/null 2>&1 || true
  local before_sync before_cpu after_cpu
  before_sync="$(syncs "$work"/"$name"-*.sync)"
  mapfile -t before_cpu < <(cpu_seconds)
  # A run that fails (redis-benchmark says why on stderr) shows as "failed" and the next one goes on.
  read -r set_rps set_p50 set_p99 < <(bench set "$@" -n "$requests") || set_rps=failed
  local set_syncs=$(($(syncs "$work"/"$name"-*.sync) - before_sync))
  mapfile -t after_cpu < <(cpu_seconds)
  read -r get_rps get_p50 get_p99 < <(bench get "$@" -n "$requests") || get_rps=failed
  local busiest
  busiest="$(for i in "${!after_cpu[@]}"; do echo "${after_cpu[$i]} ${before_cpu[$i]}"; done \
    | awk -v n="$requests" '{ d = $1 - $2; if (d > m) m = d } END { printf "%.2f", m * 10000 / n }')"
  printf '| %s | %s (%s / %s) | %s (%s / %s) | %s | %s |\n' "$name" "$set_rps" "$set_p50" "$set_p99" \
    "$get_rps" "$get_p50" "$get_p99" "$(awk -v s="$set_syncs" -v n="$requests" 'BEGIN { printf "%.3f", s / n }')" \
    "$busiest"
}

echo "# $(date -u '+%F %T UTC'); $(uptime); $requests requests per run, -c 50, -r 100000"
echo
echo "| configuration | SET/s (p50 / p99 ms) | GET/s (p50 / p99 ms) | fsyncs per SET | busiest node CPU s per 10k SETs |"
echo "|---|---|---|---:|---:|"

for config in $configs; do
  read -r -a all <<<"$(free_ports 6)"
  ports=("${all[@]:0:3}")
  if [ "$config" = "single" ]; then
    mkdir -p "$work/single"
    start_node "$work/single-0.sync" --port "${ports[0]}" --dir "$work/single" --appendfsync always
    if wait_until "single node up" pings "${ports[0]}"; then
      measure single -p "${ports[0]}"
    else
      echo "| single | did not come up | | | |"
    fi
    stop_nodes
    continue
  fi
  groups=0
  name="replicated"
  if [ "$config" != "replicated" ]; then
    groups="$config"
    name="$config-groups"
  fi
  peers=""
  for i in 0 1 2; do
    peers="${peers:+$peers,}127.0.0.1:${all[$((3 + i))]}/127.0.0.1:${ports[$i]}"
  done
  for i in 0 1 2; do
    mkdir -p "$work/$name/node-$i"
    start_node "$work/$name-$i.sync" --port "${ports[$i]}" --dir "$work/$name/node-$i" \
      --raft-address "127.0.0.1:${all[$((3 + i))]}" --raft-peers "$peers" --cluster-groups "$groups"
  done
  # A configuration that does not come up is reported as such; the next one still runs.
  if [ "$groups" -ge 3 ]; then
    if wait_until "leaders of $groups groups spread over the nodes" balanced "$groups"; then
      measure "$name" --cluster -p "${ports[0]}"
    else
      echo "| $name | leaders not spread within 120 s | | | |"
    fi
  elif { [ "$groups" -eq 0 ] || wait_until "a leader of the group" balanced 1; } \
      && wait_until "a leader that acknowledges a SET" leader_port >/dev/null; then
    measure "$name" -p "$(leader_port)"
  else
    echo "| $name | no leader within 120 s | | | |"
  fi
  stop_nodes
done
