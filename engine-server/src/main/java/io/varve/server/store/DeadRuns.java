package io.varve.server.store;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * What SPOP has learnt about one set version: stretches of the member order that hold no live member (most
 * of them made of members SPOP itself removed), and the shape of the members (per byte position, the
 * smallest and largest byte seen) to draw random starting points from.
 *
 * <p>A deleted member stays in the engine as a tombstone until compaction drops it, and every read that
 * crosses it pays for it. Knowing the dead stretches lets a pick seek past them and bound its iterator before
 * the next one, so it never walks a tombstone it has already recorded.
 *
 * <p>Invariants: runs are disjoint, non-adjacent half-open intervals {@code [start, end)} of member bytes
 * ({@code end == null}: to the end of the set); a run may only claim members that were dead when it was
 * recorded, and {@link #reopen} removes a member from its run before the member is written again. This is a
 * hint, never trusted alone: every member it leads to is read from the engine, and a pick that finds
 * nothing although the set is not empty starts again without it. Memory: at most {@link #MAX_RUNS} runs
 * (plus one during a split), each bound at most {@link #MAX_BOUND} bytes.
 *
 * <p>Thread safety: every method holds this object's monitor. Writers (SPOP, SADD) also hold the set's key
 * lock, so the runs change in commit order; readers without the key lock work on a {@link #copy}.
 */
final class DeadRuns {

    /** Most runs kept; when full, a pick continues an existing run instead of opening a new one. */
    static final int MAX_RUNS = 64;
    /** Longest run bound kept; a longer one is not recorded (its tombstones may be walked again). */
    static final int MAX_BOUND = 256;
    /** How many leading byte positions random starting points cover. */
    private static final int SHAPE_POSITIONS = 24;

    private static final byte[] EMPTY = new byte[0];

    private final TreeMap<byte[], Run> runs = new TreeMap<>(Arrays::compareUnsigned);
    private final int[] lowByte = new int[SHAPE_POSITIONS];
    private final int[] highByte = new int[SHAPE_POSITIONS];
    private int shapeLength;

    private record Run(byte[] end, long pops) {
    }

    /** Knowledge of a set whose first and last live members are {@code first} and {@code last}. */
    DeadRuns(byte[] first, byte[] last) {
        Arrays.fill(lowByte, 255);
        observe(first);
        observe(last);
        if (first.length > 0) {
            markDead(EMPTY, first, 0);
        }
        markDead(successor(last), null, 0);
    }

    private DeadRuns(DeadRuns other) {
        runs.putAll(other.runs);
        System.arraycopy(other.lowByte, 0, lowByte, 0, SHAPE_POSITIONS);
        System.arraycopy(other.highByte, 0, highByte, 0, SHAPE_POSITIONS);
        shapeLength = other.shapeLength;
    }

    /** A private copy for a reader that does not hold the set's lock. */
    synchronized DeadRuns copy() {
        return new DeadRuns(this);
    }

    /** The smallest member that sorts after {@code member}. */
    static byte[] successor(byte[] member) {
        return Arrays.copyOf(member, member.length + 1);
    }

    /** Widens the shape random points are drawn from to cover {@code member}'s leading bytes. */
    synchronized void observe(byte[] member) {
        int n = Math.min(member.length, SHAPE_POSITIONS);
        for (int i = 0; i < n; i++) {
            int b = Byte.toUnsignedInt(member[i]);
            lowByte[i] = Math.min(lowByte[i], b);
            highByte[i] = Math.max(highByte[i], b);
        }
        shapeLength = Math.max(shapeLength, n);
    }

    /**
     * Where a pick starts: a random point shaped like the members seen, moved past the run it falls in. For
     * a pop ({@code extendOnly}) with every run slot taken and the point outside every run, the pick
     * continues the run below the point instead, so its removal extends that run rather than opening
     * another. Null: past the last member.
     */
    synchronized byte[] start(RandomGenerator random, boolean extendOnly) {
        byte[] point = new byte[shapeLength];
        for (int i = 0; i < point.length; i++) {
            point[i] = (byte) (lowByte[i] + random.nextInt(highByte[i] - lowByte[i] + 1));
        }
        Map.Entry<byte[], Run> below = runs.floorEntry(point);
        if (below != null && covers(below, point)) {
            return below.getValue().end();
        }
        if (extendOnly && runs.size() >= MAX_RUNS) {
            Map.Entry<byte[], Run> cursor = below != null ? below : runs.lastEntry();
            return cursor.getValue().end();
        }
        return point;
    }

    /** {@code point} if no run holds it, else the end of the run that does (null: to the end of the set). */
    synchronized byte[] skip(byte[] point) {
        Map.Entry<byte[], Run> below = runs.floorEntry(point);
        return below != null && covers(below, point) ? below.getValue().end() : point;
    }

    /** Where the next run after {@code point} starts, or null if none does. */
    synchronized byte[] nextStart(byte[] point) {
        return runs.higherKey(point);
    }

    /**
     * Records that {@code [from, to)} holds no live member ({@code to == null}: to the end), merging it with
     * the runs it touches. {@code pops} counts the members SPOP removed there; when the runs are over their
     * limit, the one holding the fewest pops is forgotten.
     */
    synchronized void markDead(byte[] from, byte[] to, long pops) {
        if (from.length > MAX_BOUND || (to != null && to.length > MAX_BOUND)
                || (to != null && Arrays.compareUnsigned(from, to) >= 0)) {
            return;
        }
        byte[] start = from;
        byte[] end = to;
        long total = pops;
        Map.Entry<byte[], Run> below = runs.floorEntry(from);
        if (below != null && (below.getValue().end() == null
                || Arrays.compareUnsigned(below.getValue().end(), from) >= 0)) {
            start = below.getKey();
            end = max(end, below.getValue().end());
            total += below.getValue().pops();
            runs.remove(below.getKey());
        }
        Map.Entry<byte[], Run> next = runs.ceilingEntry(start);
        while (next != null && (end == null || Arrays.compareUnsigned(next.getKey(), end) <= 0)) {
            end = max(end, next.getValue().end());
            total += next.getValue().pops();
            runs.remove(next.getKey());
            next = runs.ceilingEntry(start);
        }
        runs.put(start, new Run(end, total));
        if (runs.size() > MAX_RUNS) {
            forgetLightest();
        }
    }

    /** {@code member} is about to be written: no run may claim it any more. */
    synchronized void reopen(byte[] member) {
        Map.Entry<byte[], Run> below = runs.floorEntry(member);
        if (below == null || !covers(below, member)) {
            return;
        }
        runs.remove(below.getKey());
        if (Arrays.compareUnsigned(below.getKey(), member) < 0) {
            runs.put(below.getKey(), new Run(member, below.getValue().pops()));
        }
        byte[] after = successor(member);
        Run tail = below.getValue();
        if ((tail.end() == null || Arrays.compareUnsigned(after, tail.end()) < 0) && after.length <= MAX_BOUND) {
            runs.put(after, new Run(tail.end(), 0));
        }
        if (runs.size() > MAX_RUNS) {
            forgetLightest();
        }
        observe(member);
    }

    synchronized int runCount() {
        return runs.size();
    }

    private void forgetLightest() {
        Map.Entry<byte[], Run> lightest = null;
        for (Map.Entry<byte[], Run> e : runs.entrySet()) {
            if (lightest == null || e.getValue().pops() < lightest.getValue().pops()) {
                lightest = e;
            }
        }
        runs.remove(lightest.getKey());
    }

    private static boolean covers(Map.Entry<byte[], Run> run, byte[] point) {
        byte[] end = run.getValue().end();
        return end == null || Arrays.compareUnsigned(point, end) < 0;
    }

    private static byte[] max(byte[] a, byte[] b) {
        if (a == null || b == null) {
            return null;
        }
        return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
    }
}
