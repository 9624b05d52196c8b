package io.varve.core;

import io.varve.base.LeakDetector;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.DbFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two databases with one block cache: their tables carry the same file numbers, yet each reads its own
 * blocks, both fill the one cache, and a database that closes takes exactly its blocks with it.
 */
class SharedBlockCacheTest {

    private static final int KEYS = 300;

    private int rounds;

    private static byte[] key(int round, int i) {
        return String.format("key%02d-%05d", round, i).getBytes(StandardCharsets.UTF_8);
    }

    /** Compressible, so its blocks are stored compressed and cached once decompressed. */
    private static byte[] value(char owner, int i) {
        byte[] value = new byte[200];
        Arrays.fill(value, (byte) owner);
        value[0] = (byte) i;
        return value;
    }

    private static List<String> tables(MemFileSystem fs, Path dir) throws IOException {
        return fs.list(dir).stream().filter(n -> n.endsWith(DbFiles.TABLE_SUFFIX)).sorted().toList();
    }

    private static boolean sharesATableNumber(MemFileSystem fs, Path a, Path b) throws IOException {
        List<String> both = new java.util.ArrayList<>(tables(fs, a));
        both.retainAll(tables(fs, b));
        return !both.isEmpty();
    }

    private void readAll(Db db, char owner) {
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < KEYS; i++) {
                assertArrayEquals(value(owner, i), db.get(key(round, i)), "database " + owner + ", key " + i);
            }
        }
    }

    @Test
    void databasesWithEqualFileNumbersReadTheirOwnBlocksAndCloseTakesOnlyTheirs() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        SharedBlockCache cache = new SharedBlockCache(8 << 20);
        Options options = Options.defaults().withFileSystem(fs).withBlockCache(cache);
        Path dirA = Path.of("/a");
        Path dirB = Path.of("/b");
        Db a = Db.open(dirA, options);
        Db b = Db.open(dirB, options);
        try {
            // File numbers are also taken by logs prepared in the background, so the two databases' tables get
            // the same numbers only most of the time: write and flush again until they share one.
            // Each round's keys are its own, so reading every round's keys reads every table of both.
            while (rounds < 20 && !sharesATableNumber(fs, dirA, dirB)) {
                for (int i = 0; i < KEYS; i++) {
                    a.put(key(rounds, i), value('a', i));
                    b.put(key(rounds, i), value('b', i));
                }
                rounds++;
                a.flush();
                b.flush();
            }
            assertTrue(sharesATableNumber(fs, dirA, dirB), "a table number in both databases");
            readAll(a, 'a');
            int blocksOfA = cache.blockCount();
            assertTrue(blocksOfA > 0, "compressed blocks are cached");
            readAll(b, 'b');
            assertEquals(2 * blocksOfA, cache.blockCount(), "b cached blocks of its own under the same numbers");
            long hits = cache.hits();
            readAll(a, 'a');
            readAll(b, 'b');
            assertTrue(cache.hits() > hits, "second reads come from the cache");
            assertEquals(cache.usedBytes(), Long.parseLong(a.getProperty("varve.block-cache-usage")),
                    "a database reports the whole shared cache");

            a.close();
            assertEquals(blocksOfA, cache.blockCount(), "a's blocks left with it, b's stayed");
            readAll(b, 'b');
        } finally {
            a.close();
            b.close();
        }
        assertEquals(0, cache.blockCount());
        assertEquals(0, cache.usedBytes());
        assertTrue(LeakDetector.openOwnedBy(dirA.toString()).isEmpty());
        assertTrue(LeakDetector.openOwnedBy(dirB.toString()).isEmpty());
    }

    @Test
    void aSharedCacheNeedsACapacity() {
        assertThrows(IllegalArgumentException.class, () -> new SharedBlockCache(0));
    }
}
