package io.varve.stress.raftlog;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.varve.stress.KillCycle;
import io.varve.stress.Progress;

/**
 * What a child reported since the last verified recovery, in order: each batch it started to write and
 * whether the write returned (acknowledged) and was synced. Fed line by line from the child's stdout (on the
 * reader thread), read by the parent after the child is dead.
 *
 * <p>The oracle: the recovered state must be the state after some prefix of the started batches, and that
 * prefix must include every batch up to the last acknowledged synced one (a synced write makes every earlier
 * one durable too). After a process kill ({@link #processKilled}) it must include every acknowledged batch:
 * the store hands a batch to the kernel before it acknowledges it, and a process kill loses nothing the
 * kernel has; only a machine crash loses unsynced ones. A batch started but not acknowledged may or may not
 * be there.
 */
final class AckHistory implements KillCycle.ChildReport {
    private static final int TAIL_LINES = 200;

    private final List<List<LogOp>> batches = new ArrayList<>();
    private final List<Boolean> synced = new ArrayList<>();
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private int acknowledged;
    /** Batches [0, mustSurvive) were made durable by an acknowledged synced write. */
    private int mustSurvive;
    private boolean ready;
    private final CountDownLatch opened = new CountDownLatch(1);
    private String protocolError;
    private String childError;
    private final Progress progress = new Progress();

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

    /** The first failure a thread of the child reported ("E" lines), or null. */
    @Override
    public synchronized String firstChildError() {
        return childError;
    }

    /** The first line that could not be understood, or null. */
    synchronized String protocolError() {
        return protocolError;
    }

    private void parse(String line) {
        if (line.startsWith("READ-ERROR ")) {
            throw new IllegalStateException("the child's stdout could not be read to its end");
        }
        if (line.equals("READY")) {
            ready = true;
            opened.countDown();
        } else if (line.startsWith("W ")) {
            String[] f = line.split(" ", 4);
            if (Integer.parseInt(f[1]) != batches.size()) {
                throw new IllegalStateException("child skipped a batch: " + line);
            }
            batches.add(LogOp.decodeBatch(f[3]));
            synced.add(f[2].equals("1"));
        } else if (line.startsWith("E ")) {
            if (childError == null) {
                childError = line.substring(2);
            }
        } else if (line.startsWith("A ")) {
            int n = Integer.parseInt(line.substring(2));
            acknowledged = n + 1;
            progress.acknowledged();
            if (synced.get(n)) {
                mustSurvive = n + 1;
            }
        }
    }

    /**
     * Everything acknowledged so far is durable: the store was closed normally by an engine that had not
     * failed, and close syncs.
     */
    synchronized void allAcknowledgedDurable() {
        mustSurvive = acknowledged;
    }

    /** The child was killed with SIGKILL: every batch it acknowledged reached the kernel and must survive. */
    synchronized void processKilled() {
        mustSurvive = acknowledged;
    }

    /** Told of every acknowledgement, for the campaign's no-progress rule. */
    @Override
    public Progress progress() {
        return progress;
    }

    @Override
    public synchronized boolean ready() {
        return ready;
    }

    /** Waits until the child reported its store open, at most {@code limit}; whether it did. */
    @Override
    public boolean awaitReady(Duration limit) throws InterruptedException {
        return opened.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    synchronized int started() {
        return batches.size();
    }

    synchronized int acknowledged() {
        return acknowledged;
    }

    synchronized int mustSurvive() {
        return mustSurvive;
    }

    synchronized List<String> tail() {
        return List.copyOf(tail);
    }

    /**
     * The length k of the prefix whose state, applied to {@code base}, equals {@code actual}, searched from the
     * shortest allowed; -1 if none.
     */
    synchronized int matchingPrefix(LogModel base, LogModel actual) {
        LogModel state = base.copy();
        for (int i = 0; i < mustSurvive; i++) {
            state.apply(batches.get(i));
        }
        for (int k = mustSurvive; ; k++) {
            if (state.equals(actual)) {
                return k;
            }
            if (k == batches.size()) {
                return -1;
            }
            state.apply(batches.get(k));
        }
    }

    /** The state after the batches that had to survive, for a failure message. */
    synchronized LogModel required(LogModel base) {
        LogModel state = base.copy();
        for (int i = 0; i < mustSurvive; i++) {
            state.apply(batches.get(i));
        }
        return state;
    }
}
