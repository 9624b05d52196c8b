package io.varve.core.internal.memtable;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ZeroedPagesTest {

    private static final long SIZE = 8 << 20;

    @Test
    void onLinuxWithNativeAccessMemtablesMapTheirPages() {
        assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"));
        assumeTrue(ZeroedPages.class.getModule().isNativeAccessEnabled());
        assertTrue(ZeroedPages.mapsPages(), "the tests run with native access, so mmap must be linked");
    }

    @Test
    void memoryReadsZeroUntilWrittenAndIsGoneWithItsArena() {
        Arena arena = Arena.ofShared();
        MemorySegment memory = ZeroedPages.allocate(arena, SIZE, SkiplistNodeLayout.NODE_ALIGNMENT);
        assertEquals(SIZE, memory.byteSize());
        assertEquals(0, memory.address() % SkiplistNodeLayout.NODE_ALIGNMENT);
        for (long at = 0; at < SIZE; at += 4093) {
            assertEquals(0, memory.get(ValueLayout.JAVA_BYTE, at), "byte " + at);
        }
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, SIZE - 8, -1L);
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
        assertEquals(-1L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, SIZE - 8));
        assertEquals(42L, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(0, memory.get(ValueLayout.JAVA_LONG_UNALIGNED, SIZE / 2));
        arena.close();
        assertThrows(IllegalStateException.class, () -> memory.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void aLargerAlignmentThanAPageComesFromTheArena() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = ZeroedPages.allocate(arena, 1 << 16, 1 << 16);
            assertEquals(0, memory.address() % (1 << 16));
            assertEquals(0, memory.get(ValueLayout.JAVA_LONG, 1 << 15));
        }
    }
}
