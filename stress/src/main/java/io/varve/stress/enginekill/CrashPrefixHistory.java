package io.varve.stress.enginekill;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What the in-process workload of the I/O error campaign did in one cycle, and the oracle for the state a
 * machine crash afterwards may leave. Fed the workload's {@code W}/{@code A}/{@code E} lines (see
 * {@link EngineKillChild}) as they happen, and told around every flush and log sync.
 *
 * <p>Unlike a process kill ({@link KillHistory}), a machine crash may lose acknowledged writes that were not
 * synced. What it may not do (docs/durability.md, "No holes"): the recovered state is the state after a
 * prefix of the writes in the order they were made, holding every durable one. Per thread (each owns its keys)
 * that is: its keys hold the state after its first {@code k} writes for some {@code k}, where {@code k} counts
 * at most the writes it started (a write that failed has unknown durability and may be the last one kept) and
 * at least the writes made durable: its own acknowledged synced writes and ingestions, and every write
 * acknowledged before a successful {@code syncWal} or {@code flush} started. Across threads the prefix rule is
 * checked as closure: if a thread's write is recovered, every write any thread had acknowledged before that one
 * started was logged earlier and must be recovered too.
 */
final class CrashPrefixHistory implements EngineKillChild.SyncListener {
    private static final int TAIL_LINES = 200;

    private final List<List<KillBatch>> batches = new ArrayList<>();
    /** Per thread, per write: how many writes each thread had acknowledged when it started. */
    private final List<List<int[]>> acknowledgedBefore = new ArrayList<>();
    private final int[] acknowledged = new int[KillSpace.THREADS];
    /** Per thread: how many of its first writes must survive a crash. */
    private final int[] durable = new int[KillSpace.THREADS];
    private final List<String> findings = new ArrayList<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private int[] recovered;

    CrashPrefixHistory() {
        for (int t = 0; t < KillSpace.THREADS; t++) {
            batches.add(new ArrayList<>());
            acknowledgedBefore.add(new ArrayList<>());
        }
    }

    synchronized void line(String line) {
        tail.addLast(line);
        if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
        }
        String[] f = line.split(" ", 4);
        switch (f[0]) {
            case "E" -> findings.add(line.substring(2));
            case "W" -> {
                int thread = Integer.parseInt(f[1]);
                if (Integer.parseInt(f[2]) != batches.get(thread).size()) {
                    findings.add("write out of order: " + line);
                }
                batches.get(thread).add(KillBatch.decode(f[3]));
                acknowledgedBefore.get(thread).add(acknowledged.clone());
            }
            case "A" -> {
                int thread = Integer.parseInt(f[1]);
                int index = Integer.parseInt(f[2]);
                if (index != acknowledged[thread] || index >= batches.get(thread).size()) {
                    findings.add("acknowledged out of order: " + line);
                    return;
                }
                acknowledged[thread] = index + 1;
                if (batches.get(thread).get(index).synced()) {
                    durable[thread] = index + 1;
                }
            }
            default -> findings.add("unknown line from the workload: " + line);
        }
    }

    @Override
    public synchronized Object starting() {
        return acknowledged.clone();
    }

    @Override
    public synchronized void synced(Object token) {
        int[] before = (int[]) token;
        for (int t = 0; t < KillSpace.THREADS; t++) {
            durable[t] = Math.max(durable[t], before[t]);
        }
    }

    /** Disagreements the workload saw while running (wrong data, or a broken protocol). */
    synchronized List<String> findings() {
        return List.copyOf(findings);
    }

    synchronized List<String> tail() {
        return List.copyOf(tail);
    }

    synchronized long started() {
        return batches.stream().mapToLong(List::size).sum();
    }

    synchronized long acknowledged() {
        long n = 0;
        for (int a : acknowledged) {
            n += a;
        }
        return n;
    }

    synchronized long durable() {
        long n = 0;
        for (int d : durable) {
            n += d;
        }
        return n;
    }

    /** After a successful {@link #judge}: how many writes were recovered, over all threads. */
    synchronized long recovered() {
        long n = 0;
        for (int r : recovered) {
            n += r;
        }
        return n;
    }

    /**
     * Judges the state recovered after the crash: {@code base} is every thread's state before this cycle (the
     * last verified one), {@code actual} the recovered one. Null if it obeys the prefix rule, else the problem.
     */
    synchronized String judge(long cycle, long[][][] base, long[][][] actual) {
        recovered = new int[KillSpace.THREADS];
        for (int t = 0; t < KillSpace.THREADS; t++) {
            int k = prefixLength(t, cycle, base[t], actual[t]);
            if (k < 0) {
                return "thread " + t + "'s keys are not the state after any prefix of its " + batches.get(t).size()
                        + " writes (" + acknowledged[t] + " acknowledged): compared with all acknowledged, "
                        + KillHistory.difference(applied(t, cycle, base[t], acknowledged[t]), actual[t]);
            }
            if (k < durable[t]) {
                return "thread " + t + " lost durable writes: " + k + " of its writes recovered, the first "
                        + durable[t] + " were synced, ingested, or acknowledged before a successful syncWal or flush";
            }
            recovered[t] = k;
        }
        for (int t = 0; t < KillSpace.THREADS; t++) {
            if (recovered[t] == 0) {
                continue;
            }
            int[] before = acknowledgedBefore.get(t).get(recovered[t] - 1);
            for (int u = 0; u < KillSpace.THREADS; u++) {
                if (recovered[u] < before[u]) {
                    return "a hole: thread " + t + "'s write " + (recovered[t] - 1) + " was recovered, but thread "
                            + u + " had " + before[u] + " writes acknowledged before it started and only "
                            + recovered[u] + " were recovered";
                }
            }
        }
        return null;
    }

    /** The number of thread {@code t}'s writes whose application to {@code base} gives {@code actual}, or -1. */
    private int prefixLength(int t, long cycle, long[][] base, long[][] actual) {
        long[][] state = KillSpace.copy(base);
        List<KillBatch> own = batches.get(t);
        for (int k = 0; ; k++) {
            if (KillHistory.difference(state, actual) == null) {
                return k; // each write sets a marker to its own version, so no other k matches
            }
            if (k == own.size()) {
                return -1;
            }
            own.get(k).applyTo(state, KillSpace.version(cycle, t, k));
        }
    }

    private long[][] applied(int t, long cycle, long[][] base, int count) {
        long[][] state = KillSpace.copy(base);
        for (int k = 0; k < count; k++) {
            batches.get(t).get(k).applyTo(state, KillSpace.version(cycle, t, k));
        }
        return state;
    }
}
