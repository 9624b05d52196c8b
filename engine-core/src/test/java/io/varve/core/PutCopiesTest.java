package io.varve.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link Db#put(WriteOptions, MemorySegment, MemorySegment)} promises about copies, counted as heap bytes
 * the writing thread allocates: of the three copies of the value, only the batch encoding is on the heap (the
 * log's write buffer is reused once grown, the memtable is off-heap), so a put of an off-heap value must
 * allocate about one value's worth. A second heap copy (an encoded batch copied again) shows as twice that.
 * The count is exact, not timed: the JVM attributes each allocation to the thread that makes it.
 */
class PutCopiesTest {

    private static final int VALUE_BYTES = 256 << 10;
    private static final int PUTS = 32;

    @TempDir
    Path dir;

    @Test
    void aPutOfAnOffHeapValueAllocatesOneHeapCopyOfIt() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        try (Arena arena = Arena.ofConfined(); Db db = Db.open(dir, Options.defaults())) {
            MemorySegment value = arena.allocate(VALUE_BYTES);
            value.fill((byte) 7);
            MemorySegment key = arena.allocate(8);
            // Warm up: the log's write buffer grows to hold a record once and is reused after.
            for (int i = 0; i < 4; i++) {
                key.set(ValueLayout.JAVA_LONG, 0, -1 - i);
                db.put(WriteOptions.DEFAULT, key, value);
            }
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < PUTS; i++) {
                key.set(ValueLayout.JAVA_LONG, 0, i);
                db.put(WriteOptions.DEFAULT, key, value);
            }
            long perPut = (threads.getThreadAllocatedBytes(thread) - before) / PUTS;
            assertTrue(perPut >= VALUE_BYTES, "the batch encoding holds the value: " + perPut);
            assertTrue(perPut < VALUE_BYTES * 3L / 2, "more than one heap copy of a " + VALUE_BYTES
                    + "-byte value per put: " + perPut + " bytes allocated");
            key.set(ValueLayout.JAVA_LONG, 0, 0);
            assertArrayEquals(value.toArray(ValueLayout.JAVA_BYTE),
                    db.get(key.toArray(ValueLayout.JAVA_BYTE)));
        }
    }
}
