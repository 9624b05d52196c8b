#!/usr/bin/env bash
# Runs redis-benchmark's list, set and sorted-set tests (LPUSH, LPOP, SADD, SPOP, ZADD) and ZRANGE of 100
# members from a 1,000,000-member sorted set against Varve's server and a local redis-server, taking turns,
# and writes a markdown table of medians to
# engine-server/target/collections-benchmark.md (copy the figures worth keeping into docs/benchmarks.md by hand).
#
# Usage: engine-server/bench/collections-benchmark.sh [requests] [rounds]
#   requests per run (default 100000; pipelined runs use 5x, ZRANGE always uses requests); rounds (default 3).
# Both servers log every write (Varve's WAL, redis-server's AOF); VARVE_FSYNC and REDIS_FSYNC choose their
# appendfsync policy (defaults: Varve everysec, its own default, every write in the WAL before the reply and
# the WAL fsynced each second; redis-server always, an fsync before the replies of each event-loop pass).
# VARVE_BASELINE_JAR=path also measures that server jar (an earlier build) in the same rounds (see servers.sh).
# Pre-build the server (mvn -B -q -o -DskipTests package -pl engine-server -am) so bin/varve starts at once.
# Needs redis-server, redis-benchmark and redis-cli (Debian: apt-get install -y redis-server redis-tools).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-100000}"
rounds="${2:-3}"
varve_port="${VARVE_BENCH_PORT:-16379}"
redis_port="${REDIS_BENCH_PORT:-16380}"
varve_fsync="${VARVE_FSYNC:-everysec}"
redis_fsync="${REDIS_FSYNC:-always}"
members="${BENCH_ZSET_MEMBERS:-1000000}"
work="$(mktemp -d /tmp/varve-bench.XXXXXX)"
mkdir -p "$root/engine-server/target"
out="$root/engine-server/target/collections-benchmark.md"

# shellcheck source=engine-server/bench/servers.sh
source "$root/engine-server/bench/servers.sh"
start_varve "$varve_port" "$work/varve" "$varve_fsync"
start_redis "$redis_port" "$work/redis" "$redis_fsync"
start_baseline "$work/base" "$varve_fsync"

# The sorted set for ZRANGE: members m0..m999999 with scores 0..999999, loaded through redis-cli --pipe.
for port in $(bench_server_ports); do
  awk -v n="$members" 'BEGIN { for (i = 0; i < n; i += 1000) { printf "*%d\r\n$4\r\nZADD\r\n$5\r\nboard\r\n", 2 + 2 * 1000;
      for (j = i; j < i + 1000; j++) { s = j ""; m = "m" j; printf "$%d\r\n%s\r\n$%d\r\n%s\r\n", length(s), s, length(m), m } } }' \
    | redis-cli -p "$port" --pipe >/dev/null
  [ "$(redis-cli -p "$port" zcard board)" = "$members" ] || { echo "loading the sorted set failed on $port" >&2; exit 1; }
done

uptime_before="$(uptime)"
tests="lpush,lpop,sadd,spop,zadd"
configs=("-c 50|-n $requests" "-c 50 -P 16|-n $((requests * 5))")

# Prints "name rps" lines for one run of the built-in tests and one of ZRANGE (with -n requests/scale).
run() {
  local port="$1" scale="$2"; shift 2
  local clients="$1"; shift
  redis-benchmark -h 127.0.0.1 -p "$port" -t "$tests" -r 100000 --csv $clients "$@" 2>/dev/null \
    | awk -F'","' 'NR > 1 { gsub(/"/, "", $1); gsub(/"/, "", $2); split($1, name, " "); print name[1], $2 }'
  redis-benchmark -h 127.0.0.1 -p "$port" --csv $clients -n $((requests / scale)) zrange board 0 99 2>/dev/null \
    | awk -F'","' 'NR > 1 { gsub(/"/, "", $2); print "ZRANGE_100", $2 }'
}

# Warm-up: one unmeasured pass per configuration on each server, at a tenth of the requests.
for port in $(bench_server_ports); do
  for config in "${configs[@]}"; do
    n="${config#*|}"; n="${n#-n }"; n="${n%% *}"
    run "$port" 10 "${config%%|*}" -n $((n / 10)) >/dev/null
  done
done
echo "warm-up done" >&2

# One measured run: the built-in tests and ZRANGE with the configuration's clients and -n.
measure() {
  run "$1" 1 "$2" "${@:3}"
}
declare -A runs
take_turns "$rounds" "${configs[@]}"
uptime_after="$(uptime)"

{
  echo
  echo "## redis-benchmark, lists, sets and sorted sets: Varve server vs redis-server ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(nproc) cores. \`uptime\` before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo "$(redis-server --version | cut -d' ' -f1-3). Every write logged (Varve's WAL, redis-server's AOF); Varve with"
  echo "\`--appendfsync $varve_fsync\`, redis-server with \`--appendfsync $redis_fsync\`; on loopback, redis-benchmark on the same cores."
  echo "Command: \`VARVE_FSYNC=$varve_fsync REDIS_FSYNC=$redis_fsync engine-server/bench/collections-benchmark.sh $requests $rounds\`"
  echo "(redis-benchmark -t $tests -r 100000 -n N -c 50 [-P 16], and \`zrange board 0 99\` with -n $requests on a sorted set"
  echo "of $members members); N = $requests ($((requests * 5)) pipelined);"
  echo "$rounds rounds, the servers taking turns to go first; requests per second, median of the rounds."
  echo
  if [ -n "${base_port:-}" ]; then
    echo "Baseline (\`base\`): \`$VARVE_BASELINE_JAR\`, measured in the same rounds."
    echo
    echo "| clients | test | Varve | base | redis-server | Varve / base | Varve / redis | base / redis |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
  else
    echo "| clients | test | Varve | redis-server | Varve / redis |"
    echo "|---|---|---:|---:|---:|"
  fi
  for config in "${configs[@]}"; do
    label="${config%%|*}"
    for name in LPUSH LPOP SADD SPOP ZADD ZRANGE_100; do
      v="$(median "${runs["varve|$label|$name"]:-}")"
      r="$(median "${runs["redis|$label|$name"]:-}")"
      if [ -n "${base_port:-}" ]; then
        b="$(median "${runs["base|$label|$name"]:-}")"
        echo "| $label | $name | $v | $b | $r | $(ratio "$v" "$b") | $(ratio "$v" "$r") | $(ratio "$b" "$r") |"
      else
        echo "| $label | $name | $v | $r | $(ratio "$v" "$r") |"
      fi
    done
  done
} >>"$out"
echo "appended to $out" >&2
