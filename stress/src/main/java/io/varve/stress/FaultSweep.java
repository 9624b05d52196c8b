package io.varve.stress;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which file-system operation an I/O-error campaign fails in each cycle, and a {@link Tally} of where the
 * failures fell ({@link FaultVerdicts} judges what they did). The cycles sweep N over the operation count of a fault-free run, each N once and then forever,
 * and start over when the sweep ends (as SQLite's I/O-error loops do). The sweep steps through the count by a
 * stride coprime with it rather than 1, 2, 3..., so that a short run's few cycles are spread over the open,
 * the workload and the close instead of all failing in the open.
 */
public final class FaultSweep {
    private final long operations;
    private final long stride;

    /** @param operations how many operations a fault-free cycle made: N runs from 1 to this */
    public FaultSweep(long operations) {
        this.operations = operations;
        this.stride = spreadingStride(operations);
    }

    /** The operation cycle {@code cycle} (from 1) fails, counted from 1 at the cycle's open. */
    public long operation(long cycle) {
        return 1 + (((cycle - 1) / 2) % operations) * stride % operations;
    }

    /** Whether cycle {@code cycle} fails its operation and every one after it, rather than that one only. */
    public boolean forever(long cycle) {
        return (cycle - 1) % 2 == 1;
    }

    /**
     * A step about 0.618 of {@code count} that shares no factor with it: stepping by it visits every residue
     * once per {@code count} steps, each new one far from those before (the golden ratio's low discrepancy).
     */
    static long spreadingStride(long count) {
        long stride = Math.max(1, Math.round(count * 0.6180339887));
        while (BigInteger.valueOf(stride).gcd(BigInteger.valueOf(count)).longValue() != 1) {
            stride++;
        }
        return stride;
    }

    /** Over a run: the kind of operation each cycle's first injected failure hit, and where in the run N fell. */
    public static final class Tally {
        private final Map<String, Long> firstFailedKinds = new TreeMap<>();
        private final long[] tenths = new long[10];

        /** Counts one cycle that failed operation {@code n} of {@code operations}, injecting {@code injected}. */
        public void add(long n, long operations, List<String> injected) {
            injected.stream().limit(1).forEach(op -> firstFailedKinds.merge(op, 1L, Long::sum));
            tenths[(int) Math.min(9, (n - 1) * 10 / operations)]++;
        }

        @Override
        public String toString() {
            return "first failed operation by kind " + firstFailedKinds + "; N by tenth of the run "
                    + Arrays.toString(tenths);
        }
    }
}
