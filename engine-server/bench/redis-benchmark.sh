#!/usr/bin/env bash
# Runs redis-benchmark (SET and GET) against Varve's server and a local redis-server on the same machine,
# on loopback, and writes a markdown table to engine-server/target/redis-benchmark.md
# (copy the figures worth keeping into docs/benchmarks.md by hand).
#
# Usage: engine-server/bench/redis-benchmark.sh [requests] [rounds]
#   requests: per run (default 1000000; pipelined runs use 5x); rounds: measured runs of every configuration
#   (default 3), the servers taking turns to go first; the table reports each configuration's median.
# Needs redis-server and redis-benchmark (Debian: apt-get install -y redis-server redis-tools).
# Both servers log to AOF with appendfsync everysec, so durability settings match.
# VARVE_BENCH_PIN=1 runs both servers on CPU 0 and redis-benchmark on CPU 1 (taskset), so the client's work,
# which grows with the number of connections, does not take CPU from the server being measured.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-1000000}"
rounds="${2:-3}"
varve_port="${VARVE_BENCH_PORT:-16379}"
redis_port="${REDIS_BENCH_PORT:-16380}"
work="$(mktemp -d /tmp/varve-bench.XXXXXX)"
mkdir -p "$root/engine-server/target"
out="$root/engine-server/target/redis-benchmark.md"

# shellcheck source=engine-server/bench/servers.sh
source "$root/engine-server/bench/servers.sh"
# 1000 clients need 1000+ descriptors on both sides.
ulimit -n 65536 2>/dev/null || ulimit -n 4096 2>/dev/null || true

client_cpu=()
if [ "${VARVE_BENCH_PIN:-0}" = 1 ]; then
  server_cpu=(taskset -c 0)
  client_cpu=(taskset -c 1)
fi

start_varve "$varve_port" "$work/varve" everysec
start_redis "$redis_port" "$work/redis" everysec --maxclients 10000
varve_java="$(redis-cli -p "$varve_port" info server | sed -n 's/^java_version://p' | tr -d '\r')"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
configs=("-c 50|-n $requests -c 50" "-c 1000|-n $requests -c 1000" "-c 50 -P 16|-n $((requests * 5)) -c 50 -P 16")
# Let the JIT compile the hot paths first, as JMH's warm-up iterations would: one unmeasured pass of every
# configuration, because each takes paths the others do not (pipelined batches, 1000 connections per loop).
# redis-server needs no warm-up but gets the same passes, so both start the measured runs in the same state.
for port in "$varve_port" "$redis_port"; do
  for config in "${configs[@]}"; do
    # shellcheck disable=SC2086
    "${client_cpu[@]}" redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -r 100000 -q ${config#*|} >/dev/null
  done
done

# Prints "SET-rps GET-rps" for one run.
run() {
  local port="$1"; shift
  "${client_cpu[@]}" redis-benchmark -h 127.0.0.1 -p "$port" -t set,get -r 100000 --csv "$@" 2>/dev/null \
    | awk -F'","' '/^"SET"/{s=$2} /^"GET"/{g=$2} END{gsub(/"/,"",s); gsub(/"/,"",g); print s, g}'
}

declare -A runs
for round in $(seq 1 "$rounds"); do
  order=("$varve_port varve" "$redis_port redis")
  if [ $((round % 2)) -eq 0 ]; then
    order=("$redis_port redis" "$varve_port varve")
  fi
  for config in "${configs[@]}"; do
    label="${config%%|*}"
    args="${config#*|}"
    for server in "${order[@]}"; do
      # shellcheck disable=SC2086
      runs["${server#* } $label"]+="$(run "${server%% *}" $args);"
    done
    echo "round $round $label: varve ${runs["varve $label"]} | redis ${runs["redis $label"]}" >&2
  done
done

# The median of one column (1 = SET, 2 = GET) of "SET GET;SET GET;..." runs.
median() {
  tr ';' '\n' <<<"$1" | awk -v col="$2" 'NF { print $col }' | sort -g \
    | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A result
for config in "${configs[@]}"; do
  label="${config%%|*}"
  for server in varve redis; do
    result["$server $label"]="$(median "${runs["$server $label"]}" 1) $(median "${runs["$server $label"]}" 2)"
  done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# Varve / redis per round, for one column of two "SET GET;..." run lists: "71% 75% 68%".
per_round() {
  paste -d' ' <(tr ';' '\n' <<<"$1" | awk -v col="$3" 'NF { print $col }') \
    <(tr ';' '\n' <<<"$2" | awk -v col="$3" 'NF { print $col }') \
    | awk '{ printf "%s%.0f%%", (NR > 1 ? " " : ""), ($2 > 0 ? 100 * $1 / $2 : 0) }'
}
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
  echo "one unmeasured warm-up pass of every configuration first."
  if [ ${#server_cpu[@]} -gt 0 ]; then
    echo "Pinned (VARVE_BENCH_PIN=1): both servers on CPU 0, redis-benchmark on CPU 1."
  fi
  echo "Command:"
  echo '`redis-benchmark -h 127.0.0.1 -p PORT -t set,get -r 100000 --csv -n N -c C [-P 16]`,'
  echo "N = $requests ($((requests * 5)) pipelined); $rounds rounds, the servers taking turns to go first."
  echo "Requests per second, median of the rounds:"
  echo
  echo "| clients | test | Varve | redis-server | Varve / redis | per round |"
  echo "|---|---|---:|---:|---:|---|"
  for config in "${configs[@]}"; do
    label="${config%%|*}"
    read -r vs vg <<<"${result["varve $label"]}"
    read -r rs rg <<<"${result["redis $label"]}"
    echo "| $label | SET | $vs | $rs | $(ratio "$vs" "$rs") | $(per_round "${runs["varve $label"]}" "${runs["redis $label"]}" 1) |"
    echo "| $label | GET | $vg | $rg | $(ratio "$vg" "$rg") | $(per_round "${runs["varve $label"]}" "${runs["redis $label"]}" 2) |"
  done
} >>"$out"
echo "appended to $out" >&2
