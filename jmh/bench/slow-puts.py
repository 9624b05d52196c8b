#!/usr/bin/env python3
"""What ran on the CPUs while the ingestion benchmark's slow puts waited.

Usage:
  perf record -k mono -e sched:sched_switch -e sched:sched_wakeup -a -o sched.data -- \
      java -jar jmh/target/benchmarks.jar IngestWhileWritingBenchmark -p regionWritten=false \
      -p mode=allowWrite -jvmArgsAppend -Dvarve.bench.slowPutMicros=400 > run.out
  perf script -i sched.data -F comm,tid,cpu,time,event,trace --ns > sched.txt
  jmh/bench/slow-puts.py sched.txt run.out [puts to show]

The benchmark prints each put slower than the threshold as "[slow-put] start end writer" in
System.nanoTime, which is CLOCK_MONOTONIC, the clock perf records with -k mono. For each slow put this
lists the threads that ran on each CPU meanwhile (idle excluded) and how each stopped running: R preempted,
S sleeping, D waiting for I/O. Then totals per thread over all slow puts.
"""
import bisect
import collections
import re
import sys

SWITCH = re.compile(r'\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch: prev_comm=(.+?) '
                    r'prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.+?) next_pid=(\d+)')


def segments(path):
    """(start ns, end ns, cpu, thread name, state when it stopped), from consecutive switches on each CPU."""
    out, running = [], {}
    for line in open(path):
        m = SWITCH.match(line)
        if not m:
            continue
        cpu, t = int(m.group(3)), int(m.group(4).replace('.', ''))
        if cpu in running:
            name, since = running[cpu]
            out.append((since, t, cpu, name, m.group(7)))
        running[cpu] = (m.group(8), t)
    out.sort()
    return out


def main():
    segs = segments(sys.argv[1])
    shown = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    starts = [s[0] for s in segs]
    slow = [tuple(map(int, line.split()[1:4])) for line in open(sys.argv[2]) if line.startswith('[slow-put]')]
    totals = collections.Counter()
    for n, (begin, end, writer) in enumerate(slow):
        i = max(0, bisect.bisect_left(starts, begin - 50_000_000))
        parts = []
        for s in segs[i:]:
            if s[0] >= end:
                break
            if s[1] <= begin or s[3].startswith('swapper'):
                continue
            inside = (min(s[1], end) - max(s[0], begin)) / 1000
            totals[s[3]] += inside
            parts.append("   cpu%d %-18s %7.0f us from %+7.0f, then %s" % (s[2], s[3][:18], inside,
                                                                         (s[0] - begin) / 1000, s[4]))
        if n < shown:
            print("put by writer %d, %.0f us:" % (writer, (end - begin) / 1000))
            print("\n".join(parts))
    print("CPU time inside the %d slow puts, by thread (us):" % len(slow))
    for name, micros in totals.most_common(12):
        print("  %-20s %9.0f" % (name, micros))


if __name__ == '__main__':
    main()
