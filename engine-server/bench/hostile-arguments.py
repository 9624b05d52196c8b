#!/usr/bin/env python3
"""Resident-memory growth of one hostile request, Varve beside redis-server in the same run.

Sends one multibulk of COUNT empty arguments ("*5000000\r\n" then "$0\r\n\r\n" five million times) to each
server in turn, waits for its reply, and reads VmRSS and VmHWM from /proc/<pid>/status before and after.
Both servers run at once on free ports, so load from other work on the machine hits both alike; memory
figures do not depend on that load, timing is not reported.

Usage: engine-server/bench/hostile-arguments.py [VARVE_JAR] [COUNT] [ROUNDS]
       (default engine-server/target/varve-server.jar, 5000000 arguments, 1 round)
       JAVA selects the JDK (default: a JDK 25 under /usr/lib/jvm); VARVE_ARGS adds server flags.
"""
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} missing for {pid}")


def connect(port, deadline):
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=120)
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)  # polling a starting child process; this is a script, not a test


def command(sock, *args):
    wire = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
    sock.sendall(wire)
    return read_reply(sock)


def read_reply(sock):
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed")
        data += chunk
    return data


def ready(port):
    deadline = time.time() + 120
    while True:
        sock = connect(port, deadline)
        try:
            if command(sock, b"PING").startswith(b"+PONG"):
                return
        except OSError:
            pass
        finally:
            sock.close()
        if time.time() > deadline:
            raise RuntimeError(f"no PONG on port {port}")
        time.sleep(0.1)


def hostile(port, pid, count):
    before_rss, before_hwm = status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM")
    sock = connect(port, time.time() + 10)
    header = b"*%d\r\n" % count
    block = b"$0\r\n\r\n" * 100000
    sock.sendall(header)
    sent = 0
    while sent < count:
        n = min(100000, count - sent)
        sock.sendall(block if n == 100000 else b"$0\r\n\r\n" * n)
        sent += n
    reply = read_reply(sock)
    # The reply proves the whole request was parsed; resident memory is read while the connection is open.
    after_rss, after_hwm = status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM")
    sock.close()
    return reply.strip().decode(errors="replace")[:80], (after_rss - before_rss) / 1024, \
        (after_hwm - before_hwm) / 1024, after_hwm / 1024


def main():
    jar = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "engine-server/target/varve-server.jar")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    java = os.environ.get("JAVA") or next(iter(sorted(glob.glob("/usr/lib/jvm/*25*/bin/java"))), "java")
    work = tempfile.mkdtemp(prefix="varve-hostile.")
    procs = []
    try:
        for r in range(rounds):
            vport, rport = free_port(), free_port()
            vdir, rdir = os.path.join(work, f"varve{r}"), os.path.join(work, f"redis{r}")
            os.makedirs(vdir), os.makedirs(rdir)
            varve = subprocess.Popen([java, "--enable-native-access=ALL-UNNAMED", "-jar", jar, "--port", str(vport),
                                      "--dir", vdir] + os.environ.get("VARVE_ARGS", "").split(),
                                     stdout=open(os.path.join(work, f"varve{r}.log"), "w"), stderr=subprocess.STDOUT)
            redis = subprocess.Popen(["redis-server", "--port", str(rport), "--bind", "127.0.0.1", "--dir", rdir,
                                      "--save", "", "--appendonly", "no", "--daemonize", "no"],
                                     stdout=open(os.path.join(work, f"redis{r}.log"), "w"), stderr=subprocess.STDOUT)
            procs += [varve, redis]
            ready(vport), ready(rport)
            # Alternate which server goes first, so neither always meets the machine in the same state.
            order = [("varve", vport, varve), ("redis", rport, redis)]
            if r % 2:
                order.reverse()
            results = {}
            for name, port, proc in order:
                results[name] = hostile(port, proc.pid, count)
            for name in ("varve", "redis"):
                reply, rss, hwm, peak = results[name]
                print(f"round {r + 1} {name:5s}: VmRSS +{rss:7.1f} MB, VmHWM +{hwm:7.1f} MB (peak {peak:7.1f} MB) "
                      f"reply {reply!r}")
            v, rd = results["varve"][1], results["redis"][1]
            print(f"round {r + 1} ratio varve/redis VmRSS growth: {v / rd:.2f}x" if rd > 0 else "redis grew 0")
            for p in (varve, redis):
                p.terminate()
                p.wait(timeout=60)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
