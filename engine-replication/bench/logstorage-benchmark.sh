#!/usr/bin/env bash
# jraft LogStorage under 1, 16 and 256 groups: Varve's shared engine-raftlog vs jraft's RocksDBLogStorage.
# Usage: engine-replication/bench/logstorage-benchmark.sh [--groups "1 16 256"] [--sizes "128 1024 16384"]
#        [--warmup S] [--seconds S] [--dir DIR]
# Compiles the test sources first (offline Maven). Each configuration runs in a fresh JVM on a fresh
# directory and prints one key=value line.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
groups="1 16 256"
sizes="128 1024 16384"
warmup=1
seconds=3
dir="${TMPDIR:-/tmp}/varve-logstorage-bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --groups) groups="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) echo "logstorage-benchmark: unknown option $1" >&2; exit 2 ;;
  esac
done
java="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
module="$root/engine-replication"
cp_file="$module/target/bench-classpath.txt"
# Compiles the benchmark (test sources) and writes the test classpath, with the sibling modules' classes.
(cd "$root" && mvn -B -q -o -pl engine-replication -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file" >/dev/null)
cp="$module/target/test-classes:$module/target/classes:$(cat "$cp_file")"
echo "# $(date -u '+%F %T UTC'); $(uptime)"
for g in $groups; do
  for s in $sizes; do
    for store in varve rocksdb; do
      rm -rf "$dir"
      sync
      "$java" -Xmx4g -Dbolt.netty.epoll.switch=false -Djava.util.logging.config.file=/dev/null \
        -cp "$cp" io.varve.replication.bench.LogStorageBenchmark "$store" "$g" "$s" "$warmup" "$seconds" "$dir" \
        2>/dev/null | grep '^store='
    done
  done
done
rm -rf "$dir"
