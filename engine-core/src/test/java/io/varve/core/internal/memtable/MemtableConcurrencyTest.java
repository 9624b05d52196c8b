package io.varve.core.internal.memtable;

import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.memtable.Entries.segment;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.memtable.Entries.Entry;
import io.varve.core.internal.memtable.Entries.Key;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writers race each other and readers on one memtable. Every value is a function of its key and sequence, so
 * a reader can tell a complete entry from a torn one (a torn one would show zeroed or foreign bytes).
 */
@Timeout(60)
class MemtableConcurrencyTest {

    private static final int WRITERS = 4;

    private final ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);

    @AfterEach
    void stopPool() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
    }

    /** Key {@code i} (4 bytes, big-endian) then the writer id: writers insert at neighbouring positions. */
    private static byte[] key(int i, int writer) {
        return ByteBuffer.allocate(5).putInt(i).put((byte) (0xFC + writer)).array();
    }

    /** The value expected for an entry: a length and byte pattern derived from key and sequence. */
    private static byte[] valueFor(byte[] key, long sequence) {
        int seed = Arrays.hashCode(key) * 31 + Long.hashCode(sequence);
        byte[] value = new byte[Math.floorMod(seed, 29)];
        for (int j = 0; j < value.length; j++) {
            value[j] = (byte) (seed + j * 17 + 1);
        }
        return value;
    }

    private static long put(long sequence) {
        return InternalKey.trailer(sequence, ValueKind.PUT);
    }

    @Test
    void concurrentWritersAndAReaderSeeASortedListOfCompleteEntries() throws Exception {
        int perWriter = 15_000;
        Memtable memtable = new Memtable(16L << 20);
        try {
            CountDownLatch start = new CountDownLatch(1);
            CountDownLatch readerStarted = new CountDownLatch(1);
            AtomicBoolean writersDone = new AtomicBoolean();
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        if (i == perWriter / 2) {
                            // Guarantees the reader's passes begin while the list is still being built.
                            readerStarted.await();
                        }
                        byte[] key = key(i, writer);
                        long sequence = (long) i * WRITERS + writer + 1;
                        if (!memtable.add(segment(key), put(sequence), segment(valueFor(key, sequence)))) {
                            throw new AssertionError("arena unexpectedly full");
                        }
                    }
                    return null;
                }));
            }
            Future<Long> reader = pool.submit(() -> {
                start.await();
                long previousCount = 0;
                long firstCount = -1;
                try {
                    for (int round = 0; round == 0 || !writersDone.get(); round++) {
                        if (round % 8 == 0) {
                            long count = checkedForwardPass(memtable);
                            assertTrue(count >= previousCount,
                                    "entries never disappear: a pass saw " + count + " after " + previousCount);
                            previousCount = count;
                            if (firstCount < 0) {
                                firstCount = count;
                                readerStarted.countDown();
                            }
                        }
                        checkTail(memtable);
                    }
                } finally {
                    readerStarted.countDown(); // a failed reader must not leave the writers waiting
                }
                return firstCount;
            });
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(30, TimeUnit.SECONDS);
            }
            writersDone.set(true);
            int total = perWriter * WRITERS;
            assertTrue(reader.get(30, TimeUnit.SECONDS) < total, "the reader's first pass ran mid-build");

            assertEquals(total, memtable.entryCount());
            assertEquals(total, checkedForwardPass(memtable));
            LookupResult result = new LookupResult();
            for (int w = 0; w < WRITERS; w++) {
                for (int i = 0; i < perWriter; i++) {
                    byte[] key = key(i, w);
                    long sequence = (long) i * WRITERS + w + 1;
                    assertTrue(memtable.get(segment(key), InternalKey.MAX_SEQUENCE, result), "present: " + i);
                    assertArrayEquals(valueFor(key, sequence), Entries.toArray(result.value()));
                }
            }
            try (InternalIterator it = memtable.iterator()) {
                List<Entry> forward = Entries.forward(it);
                assertEquals(forward.reversed(), Entries.backward(it));
            }
        } finally {
            memtable.release();
        }
    }

    /**
     * Writers insert keys in ascending order, so the newest nodes sit at the end of the list: probing there
     * catches a node published before its bytes were written far more often than full passes alone.
     */
    private static void checkTail(Memtable memtable) {
        try (InternalIterator it = memtable.iterator()) {
            for (int probe = 0; probe < 500; probe++) {
                it.seekToLast();
                for (int step = 0; step < 4 && it.valid(); step++) {
                    byte[] key = it.userKey().toArray(ValueLayout.JAVA_BYTE);
                    long trailer = it.trailer();
                    byte[] expected = valueFor(key, InternalKey.sequence(trailer));
                    if (!Arrays.equals(expected, it.value().toArray(ValueLayout.JAVA_BYTE))) {
                        fail("torn entry at the tail " + new Key(key, trailer));
                    }
                    it.prev();
                }
            }
        }
    }

    /** Iterates everything, checking order and content, and returns how many entries were seen. */
    private static long checkedForwardPass(Memtable memtable) {
        long count = 0;
        try (InternalIterator it = memtable.iterator()) {
            byte[] previousKey = null;
            long previousTrailer = 0;
            for (it.seekToFirst(); it.valid(); it.next()) {
                MemorySegment userKey = it.userKey();
                long trailer = it.trailer();
                byte[] key = userKey.toArray(ValueLayout.JAVA_BYTE);
                if (previousKey != null && Entries.ORDER.compare(new Key(previousKey, previousTrailer),
                        new Key(key, trailer)) >= 0) {
                    fail("out of order: " + new Key(previousKey, previousTrailer) + " before " + new Key(key, trailer));
                }
                byte[] expected = valueFor(key, InternalKey.sequence(trailer));
                byte[] actual = it.value().toArray(ValueLayout.JAVA_BYTE);
                if (!Arrays.equals(expected, actual)) {
                    fail("torn entry " + new Key(key, trailer));
                }
                previousKey = key;
                previousTrailer = trailer;
                count++;
            }
        }
        return count;
    }

    @Test
    void racingVersionsOfTheSameUserKeysAllLandInOrder() throws Exception {
        int userKeys = 32;
        int rounds = 300;
        Memtable memtable = new Memtable(8L << 20);
        try {
            runWriters(writer -> {
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < userKeys; k++) {
                        byte[] key = {(byte) (k * 8)};
                        long sequence = ((long) round * userKeys + k) * WRITERS + writer + 1;
                        assertTrue(memtable.add(segment(key), put(sequence), segment(valueFor(key, sequence))));
                    }
                }
            });
            assertEquals((long) userKeys * rounds * WRITERS, checkedForwardPass(memtable));
            LookupResult result = new LookupResult();
            long newest = (long) rounds * userKeys * WRITERS;
            for (int k = 0; k < userKeys; k++) {
                byte[] key = {(byte) (k * 8)};
                long expectedSequence = (((long) rounds - 1) * userKeys + k) * WRITERS + WRITERS;
                assertTrue(memtable.get(segment(key), newest, result));
                assertEquals(put(expectedSequence), result.trailer(), "newest version of key " + k);
            }
        } finally {
            memtable.release();
        }
    }

    @Test
    void ofTwoRacingInsertsOfOneInternalKeyExactlyOneWins() throws Exception {
        int rounds = 2_000;
        // A large value widens the window between a racer's search and its publishing CAS (the copy happens in
        // between), so the loser often meets the winner at the CAS rather than in its first search.
        byte[] value = new byte[4096];
        Memtable memtable = new Memtable(2L * rounds * (value.length + 128) + (1L << 20));
        try {
            boolean[][] won = new boolean[2][rounds];
            CyclicBarrier barrier = new CyclicBarrier(2);
            List<Future<Object>> racers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int racer = t;
                racers.add(pool.submit(() -> {
                    for (int round = 0; round < rounds; round++) {
                        byte[] key = ByteBuffer.allocate(4).putInt(round * 7919 % rounds).array();
                        barrier.await(10, TimeUnit.SECONDS);
                        try {
                            won[racer][round] = memtable.add(segment(key), put(round + 1), segment(value));
                        } catch (IllegalStateException duplicate) {
                            won[racer][round] = false;
                        }
                    }
                    return null;
                }));
            }
            for (Future<Object> racer : racers) {
                racer.get(30, TimeUnit.SECONDS);
            }
            for (int round = 0; round < rounds; round++) {
                assertTrue(won[0][round] ^ won[1][round], "exactly one winner in round " + round);
            }
            assertEquals(rounds, memtable.entryCount());
            try (InternalIterator it = memtable.iterator()) {
                assertEquals(rounds, Entries.forward(it).size());
            }
        } finally {
            memtable.release();
        }
    }

    @Test
    void writersRacingToFillTheArenaLoseNothingTheyWereToldWasAdded() throws Exception {
        Memtable memtable = new Memtable(256 * 1024);
        try {
            @SuppressWarnings("unchecked")
            List<Entry>[] accepted = new List[WRITERS];
            runWriters(writer -> {
                List<Entry> mine = new ArrayList<>();
                for (int i = 0; ; i++) {
                    byte[] key = key(i, writer);
                    long sequence = (long) i * WRITERS + writer + 1;
                    byte[] value = valueFor(key, sequence);
                    if (!memtable.add(segment(key), put(sequence), segment(value))) {
                        break;
                    }
                    mine.add(new Entry(new Key(key, put(sequence)), value));
                }
                accepted[writer] = mine;
            });
            List<Entry> expected = new ArrayList<>();
            for (List<Entry> mine : accepted) {
                expected.addAll(mine);
            }
            expected.sort((a, b) -> Entries.ORDER.compare(a.key(), b.key()));
            assertTrue(expected.size() > 1_000);
            assertTrue(memtable.approximateMemoryUsage() <= memtable.capacity());
            assertEquals(expected.size(), memtable.entryCount());
            try (InternalIterator it = memtable.iterator()) {
                assertEquals(expected, Entries.forward(it));
            }
        } finally {
            memtable.release();
        }
    }

    interface Writer {
        void run(int writer) throws Exception;
    }

    /** Starts all writers at once and waits for them, rethrowing the first failure. */
    private void runWriters(Writer body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> futures = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Callable<Object> task = () -> {
                start.await();
                body.run(writer);
                return null;
            };
            futures.add(pool.submit(task));
        }
        start.countDown();
        for (Future<Object> future : futures) {
            future.get(30, TimeUnit.SECONDS);
        }
    }
}
