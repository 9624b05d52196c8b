# Sourced by the benchmark scripts that compare bin/varve with a local redis-server: starting both, waiting
# for them, stopping them on exit, and the median and ratio the tables print. The caller sets `root` and
# `work` (a scratch directory removed on exit) before sourcing it, and may set `server_cpu` (a command prefix
# such as `taskset -c 0`) before starting the servers.

for tool in redis-server redis-benchmark redis-cli; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y redis-server redis-tools" >&2; exit 1; }
done

bench_pids=()
bench_ports=()
server_cpu=()
bench_cleanup() {
  for port in "${bench_ports[@]}"; do
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  done
  for pid in "${bench_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap bench_cleanup EXIT

wait_ready() {
  for _ in $(seq 1 300); do
    [ "$(redis-cli -p "$1" ping 2>/dev/null)" = "PONG" ] && return 0
    sleep 0.1 # polling a child process from a shell script; not used in tests
  done
  echo "server on port $1 did not come up" >&2
  exit 1
}

# start_varve port dir appendfsync [jar]: bin/varve (running jar, if given) with its WAL, logging to dir.log.
start_varve() {
  mkdir -p "$2"
  VARVE_JAR="${4:-}" "${server_cpu[@]}" "$root/bin/varve" --port "$1" --dir "$2" --appendfsync "$3" >"$2.log" 2>&1 &
  bench_pids+=($!)
  bench_ports+=("$1")
  wait_ready "$1"
}

# start_redis port dir appendfsync [option...]: redis-server with its AOF and no snapshots.
start_redis() {
  mkdir -p "$2"
  "${server_cpu[@]}" redis-server --port "$1" --bind 127.0.0.1 --dir "$2" --save "" --appendonly yes \
    --appendfsync "$3" --daemonize no "${@:4}" >"$2.log" 2>&1 &
  bench_pids+=($!)
  bench_ports+=("$1")
  wait_ready "$1"
}

# start_baseline dir appendfsync: with VARVE_BASELINE_JAR set (a server jar built from an earlier commit), starts
# it as a second Varve, "base", on VARVE_BASE_PORT (default 16381) and sets base_port, so take_turns measures it
# beside the current build in the same rounds: a change's effect shows as one run's Varve / base ratio, which a
# loaded machine distorts less than two runs apart. Without it, does nothing.
start_baseline() {
  [ -n "${VARVE_BASELINE_JAR:-}" ] || return 0
  base_port="${VARVE_BASE_PORT:-16381}"
  start_varve "$base_port" "$1" "$2" "$VARVE_BASELINE_JAR"
}

# The ports of the servers started, Varve's first, then redis-server's and the baseline's if any.
bench_server_ports() {
  echo "$varve_port" "$redis_port" ${base_port:+"$base_port"}
}

# take_turns rounds config...: for each round and each configuration ("label|arguments"), calls the caller's
# `measure port label arguments...` (which prints "name rps" lines) on every server, taking turns to go first
# (each round starts one server later), and adds each figure to runs["varve|label|name"], runs["redis|label|name"]
# or runs["base|label|name"]; the caller declares `declare -A runs` first.
take_turns() {
  local rounds="$1" round config server name rps i
  shift
  local all=("$varve_port varve" "$redis_port redis")
  [ -n "${base_port:-}" ] && all+=("$base_port base")
  for round in $(seq 1 "$rounds"); do
    local order=()
    for i in "${!all[@]}"; do
      order+=("${all[$(((i + round - 1) % ${#all[@]}))]}")
    done
    for config in "$@"; do
      for server in "${order[@]}"; do
        # shellcheck disable=SC2086
        while read -r name rps; do
          runs["${server#* }|${config%%|*}|$name"]+="$rps "
        done < <(measure "${server%% *}" "${config%%|*}" ${config#*|})
      done
      echo "round $round ${config%%|*} done" >&2
    done
  done
}

median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The lowest and highest of a list of figures, as "min-max".
spread() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk 'NR == 1 { low = $1 } { high = $1 } END { printf "%s-%s", low, high }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
