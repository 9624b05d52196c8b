#!/usr/bin/env bash
# The CPU an idle cluster costs: three bin/varve nodes with G groups (bin/varve-cluster start), 30 s to settle
# (elections, leader balancing), then the CPU seconds of all three over 20 s, read from /proc/<pid>/stat,
# and node 0's thread count. VARVE_JAR measures another server jar (a baseline build) instead.
# Usage: engine-server/bench/cluster-idle-cpu.sh [groups] [first port]   (defaults 12, 7301)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
groups="${1:-12}"
port="${2:-7301}"
dir="$(mktemp -d /tmp/varve-idle-cpu.XXXXXX)"
trap '"$root/bin/varve-cluster" stop --dir "$dir" --nodes 3 >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
"$root/bin/varve-cluster" start --dir "$dir" --port "$port" --nodes 3 --groups "$groups" >/dev/null
sleep 30 # settling, as a user's cluster would: elections and the balancer's leadership transfers
pids=$(pgrep -f "$dir/node-" | tr '\n' ' ')
ticks() {
  local total=0 p
  for p in $pids; do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$total"
}
before=$(ticks)
sleep 20
after=$(ticks)
first=${pids%% *}
echo "groups=$groups jar=${VARVE_JAR:-this checkout} cpu_seconds_per_20s=$(echo "scale=2; ($after - $before) / $(getconf CLK_TCK)" | bc) threads_node0=$(ls "/proc/$first/task" | wc -l)"
