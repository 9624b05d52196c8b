#!/usr/bin/env bash
# Runs Redis's own test suite (the one that ships with the installed redis-server's version, taken from Debian's
# source package) against Varve and against redis-server in the same run, and prints per unit the tests each
# passed, side by side. The harness runs in its external-server mode (--host/--port --singledb), so tests that
# need to start, restart, debug or replicate a server of their own are left out for both by their tags.
#
# Usage: engine-server/bench/redis-suite.sh [unit ...]
#   unit: a name such as "type/hash", "hash" or "keyspace" (default: every unit of the compatibility table).
# Environment:
#   VARVE_SUITE_UNIT_TIMEOUT  seconds one unit may run against one server before it is killed (default 600)
#   VARVE_SUITE_CACHE         where the suite's source is unpacked and kept (default ~/.cache/varve-redis-suite)
#   VARVE_SUITE_OUT           where the table and logs go (default engine-server/target/redis-suite)
#   VARVE_SUITE_ONLY          "varve" or "redis" to run one side only
#   VARVE_SUITE_JAR           the engine-server jar to run (default engine-server/target/varve-server.jar, built
#                             if missing)
# Output: the table on stdout and in engine-server/target/redis-suite/table.md; per unit and server the harness's
# log (<server>-<unit>.log) and, for Varve, the tests redis-server passed that Varve did not (missing-<unit>.txt).
#
# One change is made to the harness (in a private copy, for both servers alike): its per-unit setup call
# "r function flush" is wrapped in catch, so a server without FUNCTION still runs the other units; the tests of
# functions themselves still call FUNCTION and count as failures there.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
unit_timeout="${VARVE_SUITE_UNIT_TIMEOUT:-600}"
cache="${VARVE_SUITE_CACHE:-$HOME/.cache/varve-redis-suite}"
only="${VARVE_SUITE_ONLY:-}"
out="${VARVE_SUITE_OUT:-$root/engine-server/target/redis-suite}"
all_units=(type/string type/incr type/hash type/list type/list-2 type/list-3 type/set type/zset type/stream
  type/stream-cgroups keyspace expire scan dump multi pubsub pubsubshard scripting functions bitops bitfield
  hyperloglog geo sort info info-command introspection introspection-2 latency-monitor slowlog tracking protocol
  auth acl quit limits querybuf other)
denied_tags="-needs:debug -needs:repl -needs:save -needs:config-maxmemory -external:skip"

for tool in redis-server redis-cli tclsh timeout; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y redis-server redis-tools tcl" >&2; exit 1; }
done

# --- the suite, from the source package of the installed redis-server ------------------------------------
version="$(redis-server --version | sed -n 's/.* v=\([0-9.]*\).*/\1/p')"
suite_src="$cache/redis-$version"
if [ ! -f "$suite_src/tests/test_helper.tcl" ]; then
  mkdir -p "$cache"
  if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    [ "$(id -u)" = 0 ] || { echo "no deb-src lines in /etc/apt: add them (as root) and run again" >&2; exit 1; }
    # The binary sources with their type changed: the same mirror and suites serve the source packages.
    sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      >/etc/apt/sources.list.d/varve-deb-src.sources
    apt-get update -qq
  fi
  pkg_version="$(dpkg-query -W -f='${Version}' redis-server 2>/dev/null || true)"
  (cd "$cache" && apt-get source --download-only -qq "redis${pkg_version:+=$pkg_version}")
  tar xzf "$cache/redis_$version.orig.tar.gz" -C "$cache"
fi
[ -f "$suite_src/tests/test_helper.tcl" ] || { echo "suite not found in $suite_src" >&2; exit 1; }

# --- private copies, processes and their cleanup ---------------------------------------------------------
work="$(mktemp -d /tmp/varve-suite.XXXXXX)"
mkdir -p "$work/suite" "$out"
cp -r "$suite_src/tests" "$work/suite/"
sed -i 's/^\(\s*\)r function flush$/\1catch {r function flush}/' "$work/suite/tests/support/server.tcl"

varve_pid=""
redis_pid=""
cleanup() {
  for pid in $varve_pid $redis_pid; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $varve_pid $redis_pid; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  echo 'set s [socket -server none -myaddr 127.0.0.1 0]; puts [lindex [fconfigure $s -sockname] 2]; close $s' | tclsh
}

wait_ready() {
  local port="$1" pid="$2"
  for _ in $(seq 1 600); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1 # polling a child process from a shell script; not used in tests
  done
  return 1
}

# The jar is copied, so a rebuild while the suite runs does not change the classes of the running server.
prepare_varve() {
  local jar="${VARVE_SUITE_JAR:-$root/engine-server/target/varve-server.jar}"
  if [ ! -f "$jar" ]; then
    (cd "$root" && mvn -B -q -DskipTests package -pl engine-server -am)
  fi
  cp "$jar" "$work/varve-server.jar"
  for candidate in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [ -x "$candidate" ] || continue
    local major
    major="$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
    if [ "${major%%.*}" -ge 25 ] 2>/dev/null; then
      java_bin="$candidate"
      return 0
    fi
  done
  echo "no JDK 25 or newer found" >&2
  exit 1
}

start_varve() {
  varve_port="$(free_port)"
  rm -rf "$work/varve-data"
  mkdir -p "$work/varve-data"
  "$java_bin" --enable-native-access=ALL-UNNAMED -jar "$work/varve-server.jar" --port "$varve_port" \
    --dir "$work/varve-data" >>"$out/varve-server.log" 2>&1 &
  varve_pid=$!
  wait_ready "$varve_port" "$varve_pid" || { echo "varve did not start; see $out/varve-server.log" >&2; exit 1; }
}

start_redis() {
  redis_port="$(free_port)"
  rm -rf "$work/redis-data"
  mkdir -p "$work/redis-data"
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work/redis-data" --save "" --appendonly no \
    --daemonize no >>"$out/redis-server.log" 2>&1 &
  redis_pid=$!
  wait_ready "$redis_port" "$redis_pid" || { echo "redis-server did not start; see $out/redis-server.log" >&2; exit 1; }
}

# Restarts a server the previous unit took down, so one crash costs one unit. A unit that stopped while a
# script of its own still ran (a "while true do end" whose SCRIPT KILL came too early) leaves the server
# answering BUSY: the script is killed, or the server restarted, so that too costs one unit only.
ensure_up() {
  local pid port
  case "$1" in
    varve) pid="$varve_pid"; port="${varve_port:-}" ;;
    redis) pid="$redis_pid"; port="${redis_port:-}" ;;
  esac
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && return 0
    redis-cli -p "$port" script kill >/dev/null 2>&1 || true
    redis-cli -p "$port" function kill >/dev/null 2>&1 || true
    for _ in $(seq 1 50); do
      [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && return 0
      sleep 0.1 # polling a child process from a shell script; not used in tests
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  case "$1" in
    varve) start_varve ;;
    redis) start_redis ;;
  esac
}

# Runs one unit against one server; the test names it passed go to $out/<server>-<unit>.ok.
run_unit() {
  local server="$1" unit="$2" port name
  ensure_up "$server"
  if [ "$server" = varve ]; then port="$varve_port"; else port="$redis_port"; fi
  name="${unit//\//-}"
  # timeout puts the harness and the test client it forks in their own process group and kills the group.
  (cd "$work/suite" && timeout -k 10 "$unit_timeout" tclsh tests/test_helper.tcl --host 127.0.0.1 --port "$port" \
    --singledb --single "unit/$unit" --tags "$denied_tags" --clients 1 --timeout "$unit_timeout" \
    --baseport "$(free_port)" --portcount 1) >"$out/$server-$name.log" 2>&1 </dev/null || true
  sed 's/\x1b\[[0-9;]*m//g' "$out/$server-$name.log" | sed -n 's/^\[ok\]: \(.*\) ([0-9]* ms)$/\1/p' \
    | sort -u >"$out/$server-$name.ok"
}

[ $# -gt 0 ] || set -- "${all_units[@]}"
units=()
for u in "$@"; do
  u="${u#unit/}"
  [ -f "$suite_src/tests/unit/$u.tcl" ] || u="type/$u"
  [ -f "$suite_src/tests/unit/$u.tcl" ] || { echo "no unit $u in the suite" >&2; exit 1; }
  units+=("$u")
done

[ "$only" = redis ] || prepare_varve
rm -f "$out"/*.log "$out"/*.ok "$out"/missing-*.txt
total_varve=0
total_redis=0
{
  echo "| unit | Varve passes | redis-server passes | Varve / redis-server |"
  echo "|---|---:|---:|---:|"
} >"$out/table.md"
printf '%-22s %8s %8s\n' unit varve redis
for unit in "${units[@]}"; do
  name="${unit//\//-}"
  for server in varve redis; do
    if [ -z "$only" ] || [ "$only" = "$server" ]; then
      run_unit "$server" "$unit"
    else
      : >"$out/$server-$name.ok"
    fi
  done
  v="$(wc -l <"$out/varve-$name.ok")"
  r="$(wc -l <"$out/redis-$name.ok")"
  comm -13 "$out/varve-$name.ok" "$out/redis-$name.ok" >"$out/missing-$name.txt"
  total_varve=$((total_varve + v))
  total_redis=$((total_redis + r))
  ratio="-"
  [ "$r" -gt 0 ] && ratio="$((100 * v / r))%"
  printf '%-22s %8d %8d\n' "$unit" "$v" "$r"
  echo "| $unit | $v | $r | $ratio |" >>"$out/table.md"
done
ratio="-"
[ "$total_redis" -gt 0 ] && ratio="$((100 * total_varve / total_redis))%"
printf '%-22s %8d %8d  (%s)\n' total "$total_varve" "$total_redis" "$ratio"
echo "| **total** | **$total_varve** | **$total_redis** | **$ratio** |" >>"$out/table.md"
echo "logs and the tests Varve missed: $out" >&2
