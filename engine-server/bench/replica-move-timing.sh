#!/usr/bin/env bash
# Times VARVE CLUSTER MOVE-REPLICA of one group: three bin/varve nodes with 3 groups (ports 7101-7103), VALUES
# random keys of SIZE bytes loaded through redis-benchmark --cluster, a fourth node joined, then group 0's
# replica moved from node 0 to node 3 while redis-benchmark --cluster writes; prints the move's time (from the
# command to INFO's cluster_replica_move:none) and SET latencies without and during the move.
# Usage: VALUES=50000 SIZE=4096 engine-server/bench/replica-move-timing.sh   (data under /tmp/mv-cluster)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=/tmp/mv-cluster; rm -rf "$dir"
P=7101
values=${VALUES:-100000}; size=${SIZE:-4096}
bin/varve-cluster start --dir "$dir" --port $P --nodes 3 --groups 3 >/dev/null
ready() { for p in $P $((P+1)) $((P+2)); do [ "$(timeout 2 redis-cli -p $p ping 2>/dev/null)" = PONG ] || return 1; done; }
until ready; do sleep 0.5; done
until [ "$(timeout 2 redis-cli -p $P cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_state://p')" = ok ]; do sleep 0.5; done
sleep 5 # leaders spread after start (the balancer); polling by sleep in a hand-run script
echo "load: $values values of $size bytes"
t0=$(date +%s.%N)
redis-benchmark --cluster -p $P -t set -d $size -n $values -r 100000000 -c 50 -P 16 -q 2>&1 | tail -1
t1=$(date +%s.%N); echo "load took $(echo "$t1 - $t0" | bc) s"
du -sh "$dir"/node-0
bin/varve-cluster join 3 --dir "$dir" --port $P >/dev/null
until [ "$(timeout 2 redis-cli -p $((P+3)) ping 2>/dev/null)" = PONG ]; do sleep 0.5; done
sleep 3
echo "SET without a move:"
redis-benchmark --cluster -p $P -t set -d 100 -n 20000 -r 100000 -c 20 --csv 2>/dev/null | tail -1
echo "SET during the move of group 0 from node 0 to node 3:"
redis-benchmark --cluster -p $P -t set -d 100 -n 60000 -r 100000 -c 20 --csv > /tmp/during.csv 2>/dev/null &
bench=$!
sleep 2
m0=$(date +%s.%N)
timeout 600 bin/varve-cluster move-replica 0 0 3 --dir "$dir" --port $P --nodes 4 || true
until [ "$(timeout 2 redis-cli -p $((P+1)) info replication 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_replica_move://p')" = none ]; do sleep 0.2; done
m1=$(date +%s.%N)
echo "move took $(echo "$m1 - $m0" | bc) s"
wait $bench || true
tail -1 /tmp/during.csv
du -sh "$dir"/node-3
bin/varve-cluster stop --dir "$dir" --nodes 4 >/dev/null || true
