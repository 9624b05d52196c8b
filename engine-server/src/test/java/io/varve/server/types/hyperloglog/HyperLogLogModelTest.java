package io.varve.server.types.hyperloglog;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sparse and dense representations against the simplest oracle: one byte per register, raised to each
 * element's run length. Whatever the sparse size limit (so promotion happens at any point), the registers the
 * sketch reports, its PFADD answers and its estimate must be the oracle's.
 */
class HyperLogLogModelTest {

    @Property(tries = 200)
    void registersFollowTheOracle(@ForAll @Size(max = 400) List<@Size(max = 12) byte[]> elements,
                                  @ForAll @IntRange(min = 20, max = 3000) int sparseMaxBytes) {
        HyperLogLog sketch = HyperLogLog.empty();
        byte[] oracle = new byte[HyperLogLogLayout.REGISTERS];
        for (byte[] element : elements) {
            long hash = MurmurHash64A.hash(element, MurmurHash64A.REDIS_SEED);
            int index = (int) (hash & HyperLogLogLayout.INDEX_MASK);
            int run = Long.numberOfTrailingZeros((hash >>> HyperLogLogLayout.P) | (1L << HyperLogLogLayout.Q)) + 1;
            boolean grows = run > oracle[index];
            if (grows) {
                oracle[index] = (byte) run;
            }
            assertEquals(grows, sketch.add(element, sparseMaxBytes));
            if (!sketch.isDense()) {
                assertTrue(sketch.toBytes().length <= Math.max(sparseMaxBytes, 18), "a sparse HLL stays within its limit");
            }
        }
        assertArrayEquals(oracle, sketch.registers());
        assertEquals(HyperLogLog.estimate(oracle), sketch.estimate());
        HyperLogLog copy = HyperLogLog.of(sketch.toBytes());
        copy.toDense();
        assertArrayEquals(oracle, copy.registers());
        assertEquals(HyperLogLog.estimate(oracle), copy.estimate());
    }
}
