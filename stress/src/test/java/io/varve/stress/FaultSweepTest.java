package io.varve.stress;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

import java.util.Arrays;
import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The I/O-error sweep's stride reaches every N once per pass, and its first steps are spread out. */
class FaultSweepTest {

    @Property
    void onePassVisitsEveryOperationOnce(@ForAll @LongRange(min = 1, max = 5_000) long count) {
        long stride = FaultSweep.spreadingStride(count);
        BitSet seen = new BitSet();
        for (long k = 0; k < count; k++) {
            seen.set((int) (k * stride % count));
        }
        assertEquals(count, seen.cardinality(), "stride " + stride);
    }

    @Property
    void twentyStepsLeaveNoGapOfAFifthOfTheRun(@ForAll @LongRange(min = 200, max = 100_000) long count) {
        long stride = FaultSweep.spreadingStride(count);
        long[] points = new long[20];
        for (int k = 0; k < points.length; k++) {
            points[k] = k * stride % count;
        }
        Arrays.sort(points);
        long widest = count - points[points.length - 1] + points[0];
        for (int k = 1; k < points.length; k++) {
            widest = Math.max(widest, points[k] - points[k - 1]);
        }
        assertTrue(widest * 5 < count, "stride " + stride + " over " + count + " leaves a gap of " + widest);
    }
}
