#!/usr/bin/env bash
# Runs a small read-modify-write script (EVALSHA), XADD, XREADGROUP and XACK on a consumer group, and PFADD
# through redis-benchmark against Varve's server and a local redis-server, taking turns, and appends a markdown
# table of medians to engine-server/target/scripting-streams-benchmark.md (copy the figures worth keeping
# into docs/benchmarks.md by hand).
#
# Usage: engine-server/bench/scripting-streams-benchmark.sh [requests] [rounds]
#   requests per run (default 50000; pipelined runs use 5x); rounds (default 3).
# Both servers log every write (Varve's WAL, redis-server's AOF); VARVE_FSYNC and REDIS_FSYNC choose their
# appendfsync policy (defaults: both everysec). Before each XREADGROUP run the stream is loaded afresh with as
# many entries as the run reads (ids 1-1, 2-1, ...), so every read delivers one entry; the XACK run then
# acknowledges random ones of them.
# VARVE_BASELINE_JAR=path also measures that server jar (an earlier build) in the same rounds (see servers.sh).
# Pre-build the server (mvn -B -q -o -DskipTests package -pl engine-server -am) so bin/varve starts at once.
# Needs redis-server, redis-benchmark and redis-cli (Debian: apt-get install -y redis-server redis-tools).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requests="${1:-50000}"
rounds="${2:-3}"
varve_port="${VARVE_BENCH_PORT:-16379}"
redis_port="${REDIS_BENCH_PORT:-16380}"
varve_fsync="${VARVE_FSYNC:-everysec}"
redis_fsync="${REDIS_FSYNC:-everysec}"
work="$(mktemp -d /tmp/varve-bench.XXXXXX)"
mkdir -p "$root/engine-server/target"
out="$root/engine-server/target/scripting-streams-benchmark.md"
# shellcheck source=engine-server/bench/servers.sh
source "$root/engine-server/bench/servers.sh"

start_varve "$varve_port" "$work/varve" "$varve_fsync"
start_redis "$redis_port" "$work/redis" "$redis_fsync"
start_baseline "$work/base" "$varve_fsync"

# A read-modify-write of one counter: what rate limiters and locks built on scripts do.
script="local v = tonumber(redis.call('GET', KEYS[1]) or '0') + 1 redis.call('SET', KEYS[1], v) return v"
sha=""
for port in $(bench_server_ports); do
  sha="$(redis-cli -p "$port" script load "$script")"
done

# Loads stream "work" with $1 entries (ids 1-1 .. n-1) and a group "g" that has read none of them.
load_stream() {
  local port="$1" n="$2"
  redis-cli -p "$port" del work >/dev/null
  awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) { id = i "-1"; printf "*5\r\n$4\r\nXADD\r\n$4\r\nwork\r\n$%d\r\n%s\r\n$1\r\nf\r\n$1\r\nv\r\n", length(id), id } }' \
    | redis-cli -p "$port" --pipe >/dev/null
  redis-cli -p "$port" xgroup create work g 0 >/dev/null
  [ "$(redis-cli -p "$port" xlen work)" = "$n" ] || { echo "loading the stream failed on $port" >&2; exit 1; }
}

# Prints "name rps" lines for one pass over the commands with the given redis-benchmark options and -n n.
run() {
  local port="$1" n="$2"; shift 2
  one() {
    local name="$1"; shift
    # shellcheck disable=SC2086
    redis-benchmark -h 127.0.0.1 -p "$port" --csv "$@" 2>/dev/null \
      | awk -F'","' -v name="$name" 'NR > 1 { gsub(/"/, "", $2); print name, $2 }'
  }
  # shellcheck disable=SC2068
  one EVALSHA $@ -n "$n" -r 100000 evalsha "$sha" 1 counter:__rand_int__
  one XADD $@ -n "$n" xadd events '*' f v
  one PFADD $@ -n "$n" -r 1000000 pfadd hll __rand_int__
  load_stream "$port" "$n"
  one XREADGROUP $@ -n "$n" xreadgroup group g consumer count 1 streams work '>'
  one XACK $@ -n "$n" -r "$n" xack work g __rand_int__-1
}

configs=("-c 50|$requests" "-c 50 -P 16|$((requests * 5))")

for port in $(bench_server_ports); do
  for config in "${configs[@]}"; do
    # shellcheck disable=SC2086
    run "$port" $((${config#*|} / 10)) ${config%%|*} >/dev/null
  done
done
echo "warm-up done" >&2

# One measured run: every command with the configuration's clients, -n requests.
measure() {
  # shellcheck disable=SC2086
  run "$1" "$3" $2
}
uptime_before="$(uptime)"
declare -A runs
take_turns "$rounds" "${configs[@]}"
uptime_after="$(uptime)"

{
  echo
  echo "## redis-benchmark, scripts, streams and HyperLogLog: Varve server vs redis-server ($(date -u +%Y-%m-%d))"
  echo
  echo "Machine: $(nproc) cores. \`uptime\` before: \`$uptime_before\`; after: \`$uptime_after\`."
  echo "$(redis-server --version | cut -d' ' -f1-3). Every write logged (Varve's WAL, redis-server's AOF); Varve with"
  echo "\`--appendfsync $varve_fsync\`, redis-server with \`--appendfsync $redis_fsync\`; on loopback, redis-benchmark on the same cores."
  echo "Command: \`VARVE_FSYNC=$varve_fsync REDIS_FSYNC=$redis_fsync engine-server/bench/scripting-streams-benchmark.sh $requests $rounds\`"
  echo "(EVALSHA of a GET-and-SET script on 100,000 counters, XADD to one stream, PFADD of 1,000,000 values,"
  echo "XREADGROUP COUNT 1 of one entry each from a loaded stream, XACK of random delivered ids); -n $requests"
  echo "($((requests * 5)) pipelined); $rounds rounds, the servers taking turns to go first; requests per second, median."
  echo
  if [ -n "${base_port:-}" ]; then
    echo "Baseline (\`base\`): \`$VARVE_BASELINE_JAR\`, measured in the same rounds."
    echo
    echo "| clients | test | Varve | (min-max) | base | (min-max) | redis-server | (min-max) | Varve / base | Varve / redis | base / redis |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  else
    echo "| clients | test | Varve | (min-max) | redis-server | (min-max) | Varve / redis |"
    echo "|---|---|---:|---:|---:|---:|---:|"
  fi
  for config in "${configs[@]}"; do
    label="${config%%|*}"
    for name in EVALSHA XADD PFADD XREADGROUP XACK; do
      v="$(median "${runs["varve|$label|$name"]:-}")"
      r="$(median "${runs["redis|$label|$name"]:-}")"
      if [ -n "${base_port:-}" ]; then
        b="$(median "${runs["base|$label|$name"]:-}")"
        echo "| $label | $name | $v | $(spread "${runs["varve|$label|$name"]:-}") | $b |" \
          "$(spread "${runs["base|$label|$name"]:-}") | $r | $(spread "${runs["redis|$label|$name"]:-}") |" \
          "$(ratio "$v" "$b") | $(ratio "$v" "$r") | $(ratio "$b" "$r") |"
      else
        echo "| $label | $name | $v | $(spread "${runs["varve|$label|$name"]:-}") | $r |" \
          "$(spread "${runs["redis|$label|$name"]:-}") | $(ratio "$v" "$r") |"
      fi
    done
  done
} >>"$out"
echo "appended to $out" >&2
