#!/usr/bin/env bash
# Pipelined SET/GET (redis-benchmark -c 50 -P 16) against two Varve server jars and a local redis-server,
# started together and measured in interleaved rounds, so that load from other work on the machine hits all
# three alike. Prints every round and the medians of the ratios.
#
# Usage: engine-server/bench/pipelined-compare.sh OLD.jar NEW.jar [rounds] [requests]
#        (default 4 rounds of 1000000 pipelined requests per test, after a 200000-request warm-up each)
#        OLD_ARGS / NEW_ARGS add server flags to one side, e.g. NEW_ARGS="--write-buffer-size 8mb".
# Build a jar of another commit with: git stash / checkout, mvn -B -q -DskipTests package -pl engine-server -am,
# then copy engine-server/target/varve-server.jar aside.
set -euo pipefail
old="$1"; new="$2"; rounds="${3:-4}"; requests="${4:-1000000}"
ports=(16481 16482 16483)
work="$(mktemp -d /tmp/varve-pipelined.XXXXXX)"
mkdir -p "$work/old" "$work/new" "$work/redis"
# A JDK 25 (the jar needs it): $JAVA, else the one bin/varve would pick on this layout, else java on PATH.
java="${JAVA:-$(ls /usr/lib/jvm/*25*/bin/java 2>/dev/null | head -n1)}"
java="${java:-java}"
pids=()
cleanup() {
  for p in "${ports[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
"$java" --enable-native-access=ALL-UNNAMED -jar "$old" --port "${ports[0]}" --dir "$work/old" --appendfsync everysec ${OLD_ARGS:-} \
  >"$work/old.log" 2>&1 & pids+=($!)
"$java" --enable-native-access=ALL-UNNAMED -jar "$new" --port "${ports[1]}" --dir "$work/new" --appendfsync everysec ${NEW_ARGS:-} \
  >"$work/new.log" 2>&1 & pids+=($!)
redis-server --port "${ports[2]}" --bind 127.0.0.1 --dir "$work/redis" --save "" --appendonly yes \
  --appendfsync everysec --daemonize no >"$work/redis.log" 2>&1 & pids+=($!)
for p in "${ports[@]}"; do
  for _ in $(seq 1 300); do
    [ "$(redis-cli -p "$p" ping 2>/dev/null)" = "PONG" ] && break
    sleep 0.1 # polling a child process from a shell script; not used in tests
  done
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in "${ports[@]}"; do
  redis-benchmark -h 127.0.0.1 -p "$p" -t set,get -n 200000 -c 50 -r 100000 -q >/dev/null
done
run() {
  redis-benchmark -h 127.0.0.1 -p "$1" -t set,get -r 100000 --csv -n "$requests" -c 50 -P 16 2>/dev/null \
    | awk -F'","' '/^"SET"/{s=$2} /^"GET"/{g=$2} END{gsub(/"/,"",s); gsub(/"/,"",g); print s, g}'
}
: >"$work/rounds"
for _ in $(seq 1 "$rounds"); do
  echo "$(run "${ports[0]}") $(run "${ports[1]}") $(run "${ports[2]}")" | tee -a "$work/rounds" | awk '{
    printf "SET old %7.0f new %7.0f redis %7.0f (old %3.0f%%, new %3.0f%%) | GET old %7.0f new %7.0f redis %7.0f (old %3.0f%%, new %3.0f%%)\n",
      $1, $3, $5, 100*$1/$5, 100*$3/$5, $2, $4, $6, 100*$2/$6, 100*$4/$6 }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  { n++; so[n] = $1 / $5; sn[n] = $3 / $5; go[n] = $2 / $6; gn[n] = $4 / $6; snew[n] = $3 / $1; gnew[n] = $4 / $2 }
  END { printf "medians: SET old/redis %.0f%%, new/redis %.0f%%, new/old %.2f | GET old/redis %.0f%%, new/redis %.0f%%, new/old %.2f\n",
        100 * median(so, n), 100 * median(sn, n), median(snew, n), 100 * median(go, n), 100 * median(gn, n), median(gnew, n) }' "$work/rounds"
