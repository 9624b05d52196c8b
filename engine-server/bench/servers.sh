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

# start_varve port dir appendfsync: bin/varve with its WAL, logging to dir.log.
start_varve() {
  mkdir -p "$2"
  "${server_cpu[@]}" "$root/bin/varve" --port "$1" --dir "$2" --appendfsync "$3" >"$2.log" 2>&1 &
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

# take_turns rounds config...: for each round and each configuration ("label|arguments"), calls the caller's
# `measure port label arguments...` (which prints "name rps" lines) on both servers, taking turns to go first,
# and adds each figure to runs["varve|label|name"] or runs["redis|label|name"]; the caller declares
# `declare -A runs` first.
take_turns() {
  local rounds="$1" round config server name rps
  shift
  for round in $(seq 1 "$rounds"); do
    local order=("$varve_port varve" "$redis_port redis")
    [ $((round % 2)) -eq 0 ] && order=("$redis_port redis" "$varve_port varve")
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
