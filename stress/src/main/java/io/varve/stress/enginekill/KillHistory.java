package io.varve.stress.enginekill;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import io.varve.stress.KillCycle;
import io.varve.stress.Progress;
import java.util.concurrent.TimeUnit;

/**
 * What the engine kill child reported since the last verified recovery, per writer thread and in order: each
 * write it started ({@code W}) and whether it returned ({@code A}). Fed line by line from the child's stdout
 * on the reader thread; judged by the parent after the child is dead.
 *
 * <p>The oracle, per thread (each thread owns its keys, so its writes have one order): the recovered state of
 * the thread's keys must be the state after all its acknowledged writes, or after those and the one it had
 * started but not seen return. A process kill loses nothing the kernel has, and an acknowledged write, synced
 * or not, is in the kernel (docs/durability.md), so every acknowledged write must survive; the write in flight
 * appears whole or not at all. Across threads this is the prefix rule: the recovered set is closed under
 * "acknowledged before the other was started", since every acknowledged write is in it. States are compared
 * exactly, key by key: a key's state is the hash chain of its last put and the merges since ({@link KillMerge}),
 * so a merge operand lost, applied twice or out of order is a difference like a lost put.
 *
 * <p>Checkpoints ({@code C <n> start}, {@code C <n> done}): the last finished one must hold, per thread, the
 * state after a prefix of its writes that takes in every write acknowledged before the checkpoint started and
 * none started after it finished (docs/operations.md: every write acknowledged before the call, a prefix of
 * the commit order).
 */
final class KillHistory implements KillCycle.ChildReport {
    private static final int TAIL_LINES = 200;

    private final List<List<KillBatch>> batches = new ArrayList<>();
    private final int[] acknowledged = new int[KillSpace.THREADS];
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final CountDownLatch opened = new CountDownLatch(1);
    private final Progress progress = new Progress();
    private final List<String> childErrors = new ArrayList<>();
    private long acknowledgedSynced;
    private long acknowledgedTransactions;
    private long acknowledgedMerges;
    private long checkpointStarted;
    private int[] acknowledgedAtStart;
    private long lastCheckpoint;
    /** Per thread, for {@link #lastCheckpoint}: writes acknowledged when it started, started when it ended. */
    private int[] checkpointFloor;
    private int[] checkpointCeiling;
    private boolean ready;
    private String protocolError;

    KillHistory() {
        for (int t = 0; t < KillSpace.THREADS; t++) {
            batches.add(new ArrayList<>());
        }
    }

    synchronized void line(String line) {
        tail.addLast(line);
        if (tail.size() > TAIL_LINES) {
            tail.removeFirst();
        }
        if (protocolError != null) {
            return;
        }
        try {
            parse(line);
        } catch (RuntimeException e) {
            protocolError = "unreadable line from the child: " + line + " (" + e + ")";
        }
    }

    private void parse(String line) {
        if (line.startsWith("READ-ERROR ")) {
            throw new IllegalStateException("the child's stdout could not be read to its end");
        }
        if (line.equals("READY")) {
            ready = true;
            opened.countDown();
        } else if (line.startsWith("C ")) {
            String[] f = line.split(" ");
            long n = Long.parseLong(f[1]);
            if (f[2].equals("start") && n == lastCheckpoint + 1 && n > checkpointStarted) {
                checkpointStarted = n;
                acknowledgedAtStart = acknowledged.clone();
            } else if (f[2].equals("done") && n == checkpointStarted && n == lastCheckpoint + 1) {
                lastCheckpoint = n;
                checkpointFloor = acknowledgedAtStart;
                checkpointCeiling = new int[KillSpace.THREADS];
                for (int t = 0; t < KillSpace.THREADS; t++) {
                    checkpointCeiling[t] = batches.get(t).size();
                }
            } else {
                throw new IllegalStateException("checkpoint lines out of order");
            }
        } else if (line.startsWith("E ")) {
            childErrors.add(line.substring(2));
        } else if (line.startsWith("W ")) {
            String[] f = line.split(" ", 4);
            List<KillBatch> own = batches.get(Integer.parseInt(f[1]));
            if (Integer.parseInt(f[2]) != own.size() || own.size() > acknowledged[Integer.parseInt(f[1])]) {
                throw new IllegalStateException("out of order: " + line);
            }
            own.add(KillBatch.decode(f[3]));
        } else if (line.startsWith("A ")) {
            String[] f = line.split(" ");
            int thread = Integer.parseInt(f[1]);
            int index = Integer.parseInt(f[2]);
            if (index != acknowledged[thread] || index >= batches.get(thread).size()) {
                throw new IllegalStateException("acknowledged out of order: " + line);
            }
            acknowledged[thread] = index + 1;
            progress.acknowledged();
            KillBatch batch = batches.get(thread).get(index);
            if (batch.synced()) {
                acknowledgedSynced++;
            }
            if (batch.route() == KillBatch.Route.OPTIMISTIC_TRANSACTION
                    || batch.route() == KillBatch.Route.PESSIMISTIC_TRANSACTION) {
                acknowledgedTransactions++;
            }
            acknowledgedMerges += batch.ops().stream().filter(op -> op.kind() == 'M').count();
        } else {
            throw new IllegalStateException("unknown line");
        }
    }

    /** Told of every acknowledgement, for the campaign's no-progress rule. */
    @Override
    public Progress progress() {
        return progress;
    }

    synchronized String protocolError() {
        return protocolError;
    }

    synchronized List<String> childErrors() {
        return List.copyOf(childErrors);
    }

    @Override
    public synchronized String firstChildError() {
        return childErrors.isEmpty() ? null : childErrors.getFirst();
    }

    @Override
    public synchronized boolean ready() {
        return ready;
    }

    @Override
    public boolean awaitReady(Duration limit) throws InterruptedException {
        return opened.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    synchronized long acknowledged() {
        long n = 0;
        for (int a : acknowledged) {
            n += a;
        }
        return n;
    }

    synchronized long acknowledgedSynced() {
        return acknowledgedSynced;
    }

    /** Acknowledged writes that were transactions. */
    synchronized long acknowledgedTransactions() {
        return acknowledgedTransactions;
    }

    /** Merge operands in acknowledged writes. */
    synchronized long acknowledgedMerges() {
        return acknowledgedMerges;
    }

    /** Writes started and not acknowledged: at most one per thread. */
    synchronized int inFlight() {
        int n = 0;
        for (int t = 0; t < KillSpace.THREADS; t++) {
            n += batches.get(t).size() - acknowledged[t];
        }
        return n;
    }

    synchronized List<String> tail() {
        return List.copyOf(tail);
    }

    /** The number of the last checkpoint the child finished, 0 if none. */
    synchronized long lastCheckpoint() {
        return lastCheckpoint;
    }

    /**
     * Judges thread {@code t}'s keys in the last finished checkpoint ({@code actual}): null if they are the state
     * after {@code base} and a prefix of the cycle's writes between the checkpoint's floor and ceiling, else
     * what is wrong.
     */
    synchronized String judgeCheckpoint(int t, long cycle, long[][] base, long[][] actual) {
        long[][] expected = KillSpace.copy(base);
        List<KillBatch> own = batches.get(t);
        int floor = checkpointFloor[t];
        for (int i = 0; i < floor; i++) {
            own.get(i).applyTo(expected, KillSpace.version(cycle, t, i));
        }
        String first = difference(expected, actual);
        for (int i = floor; first != null && i < checkpointCeiling[t]; i++) {
            own.get(i).applyTo(expected, KillSpace.version(cycle, t, i));
            if (difference(expected, actual) == null) {
                return null;
            }
        }
        return first == null ? null : "thread " + t + " in checkpoint " + lastCheckpoint + " (" + floor
                + " writes acknowledged before it started, " + checkpointCeiling[t] + " started before it ended): "
                + "no prefix in between matches; against the first, " + first;
    }

    /** The verdict on one thread's recovered keys. */
    record ThreadVerdict(boolean ok, boolean inFlightRecovered, String problem) {
    }

    /**
     * Judges thread {@code t}: {@code base} is its state before this cycle (the last verified one),
     * {@code actual} the recovered one.
     */
    synchronized ThreadVerdict judge(int t, long cycle, long[][] base, long[][] actual) {
        long[][] expected = KillSpace.copy(base);
        List<KillBatch> own = batches.get(t);
        for (int i = 0; i < acknowledged[t]; i++) {
            own.get(i).applyTo(expected, KillSpace.version(cycle, t, i));
        }
        String lost = difference(expected, actual);
        if (lost == null) {
            return new ThreadVerdict(true, false, null);
        }
        if (own.size() > acknowledged[t]) {
            own.get(acknowledged[t]).applyTo(expected, KillSpace.version(cycle, t, acknowledged[t]));
            if (difference(expected, actual) == null) {
                return new ThreadVerdict(true, true, null);
            }
        }
        return new ThreadVerdict(false, false, "thread " + t + " (" + acknowledged[t] + " writes acknowledged, "
                + (own.size() - acknowledged[t]) + " in flight): " + lost);
    }

    /** The first few places where the states differ, or null if they are equal. */
    static String difference(long[][] expected, long[][] actual) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        int total = 0;
        for (int f = 0; f < expected.length; f++) {
            for (int i = 0; i < expected[f].length; i++) {
                if (expected[f][i] != actual[f][i]) {
                    total++;
                    if (shown++ < 4) {
                        b.append(KillSpace.FAMILIES.get(f)).append('/').append(i == KillSpace.MARKER ? "marker" : i)
                                .append(" expected ").append(Long.toHexString(expected[f][i])).append(" found ")
                                .append(Long.toHexString(actual[f][i])).append("; ");
                    }
                }
            }
        }
        return total == 0 ? null : total + " keys differ from the state after the acknowledged writes: " + b;
    }
}
