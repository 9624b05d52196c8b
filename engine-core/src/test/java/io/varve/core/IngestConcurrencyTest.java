package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.core.internal.DbImpl;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.varve.core.IngestFixtures.bytes;
import static io.varve.core.IngestFixtures.external;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The regression test for tikv#19891 (an ingestion that read the last sequence and wrote it back moved it
 * backwards and gave two writes one number): many writers and repeated ingestions, in every mode, at once.
 * Afterwards an unmerged scan of every stored entry with its sequence must show each sequence used by one
 * write or by one whole ingestion and nothing else; throughout, the visible sequence must never decrease,
 * a writer must read its own write, and an ingestion must be invisible to a snapshot taken before it and
 * fully visible once it returns.
 */
class IngestConcurrencyTest {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");
    private static final int WRITERS = 4;
    private static final int WRITES_PER_WRITER = 1_500;
    private static final int INGESTERS = 2;
    private static final int INGESTS_PER_INGESTER = 40;
    private static final int KEYS_PER_FILE = 20;

    @Test
    @Timeout(120)
    void sequencesAreNeverSharedAndVisibilityNeverMovesBackwards() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(EXT);
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new io.varve.core.compaction.CompactionSettings(2, 64 << 10, 4, 16 << 10))
                .withMaxBackgroundCompactions(2);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        try (Db db = Db.open(DIR, options)) {
            DbImpl impl = (DbImpl) db;
            ColumnFamily cf = db.defaultColumnFamily();
            List<Thread> threads = new ArrayList<>();
            Thread monitor = Thread.ofPlatform().start(() -> {
                long last = DbTestAccess.visibleSequence(impl);
                while (!done.get() && failure.get() == null) {
                    long now = DbTestAccess.visibleSequence(impl);
                    if (now < last) {
                        failure.compareAndSet(null, new AssertionError("visible sequence went from " + last + " to " + now));
                    }
                    last = now;
                    Thread.onSpinWait();
                }
            });
            for (int w = 0; w < WRITERS; w++) {
                int id = w;
                threads.add(Thread.ofPlatform().start(() -> run(failure, () -> {
                    for (int i = 0; i < WRITES_PER_WRITER && failure.get() == null; i++) {
                        byte[] key = bytes(String.format("w%d-%05d", id, i));
                        db.put(key, key);
                        assertArrayEquals(key, db.get(key), "a writer reads its own write");
                    }
                })));
            }
            for (int g = 0; g < INGESTERS; g++) {
                int id = g;
                threads.add(Thread.ofPlatform().start(() -> run(failure, () -> {
                    SplittableRandom random = new SplittableRandom(id);
                    for (int n = 0; n < INGESTS_PER_INGESTER && failure.get() == null; n++) {
                        String prefix = String.format("i%d-%03d-", id, n);
                        TreeMap<String, String> entries = new TreeMap<>();
                        for (int k = 0; k < KEYS_PER_FILE; k++) {
                            entries.put(prefix + String.format("%02d", k), "ingested");
                        }
                        Path file = external(fs, EXT.resolve(prefix + ".sst"), "default", entries);
                        if (random.nextBoolean()) {
                            // Data in the range (not in the file) in a memtable: the ingestion must flush it first.
                            db.put(bytes(prefix + "05x"), bytes("older"));
                        }
                        Snapshot before = db.snapshot();
                        IngestOptions ingest = IngestOptions.defaults().withMoveFiles(random.nextBoolean());
                        switch (random.nextInt(3)) {
                            case 0 -> db.ingestExternalFiles(List.of(file), ingest);
                            case 1 -> db.ingestExternalFilesWithFlushRetry(cf, List.of(file), ingest);
                            default -> db.ingestExternalFiles(List.of(file), ingest.withAllowWrite(true));
                        }
                        for (String key : entries.keySet()) {
                            assertArrayEquals(bytes("ingested"), db.get(bytes(key)), key);
                            assertNull(db.get(ReadOptions.at(before), bytes(prefix + "00")));
                        }
                        before.close();
                    }
                })));
            }
            for (Thread t : threads) {
                t.join();
            }
            done.set(true);
            monitor.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }

            // Who used each sequence: one writer's key, one ingester's pre-write, or one whole ingestion.
            Map<Long, Set<String>> origins = new HashMap<>();
            Map<Long, Integer> entryCounts = new HashMap<>();
            DbTestAccess.forEachStoredEntry(impl, cf, (key, sequence) -> {
                String k = new String(key);
                String origin = k.startsWith("w") || k.endsWith("x") ? "write " + k
                        : "ingest " + k.substring(0, k.length() - 2);
                origins.computeIfAbsent(sequence, s -> new HashSet<>()).add(origin);
                entryCounts.merge(sequence, 1, Integer::sum);
            });
            long writes = 0;
            Set<String> ingestions = new HashSet<>();
            for (Map.Entry<Long, Set<String>> e : origins.entrySet()) {
                assertEquals(1, e.getValue().size(), "sequence " + e.getKey() + " used by " + e.getValue());
                String origin = e.getValue().iterator().next();
                if (origin.startsWith("write")) {
                    assertEquals(1, entryCounts.get(e.getKey()), "sequence " + e.getKey() + " used twice by " + origin);
                    writes++;
                } else {
                    assertTrue(ingestions.add(origin), origin + " appears at two sequences");
                }
            }
            assertTrue(writes >= (long) WRITERS * WRITES_PER_WRITER, writes + " writes");
            assertEquals(INGESTERS * INGESTS_PER_INGESTER, ingestions.size());
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void run(AtomicReference<Throwable> failure, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }
}
