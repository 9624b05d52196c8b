package io.varve.core;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checkpoints of a live database, against a model: the acknowledged writes in commit order (one writer thread,
 * so acknowledgement order is commit order), over two column families. A checkpoint taken while that writer,
 * flushes and compactions race it must open as a prefix of the acknowledged order holding every write
 * acknowledged before the call. A failure and crash at any file-system operation during a checkpoint must
 * leave the source intact and a target that is refused or holds exactly the source's data; a checkpoint that
 * returned before the crash must open and hold exactly that data.
 */
class CheckpointProperties {

    private static final Path DIR = Path.of("/db");
    private static final Path TARGET = Path.of("/checkpoint");

    /** One acknowledged write: puts (value != null) and deletes over families 0 (default) and 1 ("a"). */
    record Op(int family, int key, byte[] value) {
    }

    private static Options options(io.varve.base.fs.FileSystem fs) {
        CompactionSettings small = new CompactionSettings(2, 64 << 10, 4, 16 << 10);
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10).withCompactionSettings(small)
                .withColumnFamily("a", ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10)
                        .withCompactionSettings(small));
    }

    @Property(tries = 15)
    void checkpointRacingWritesFlushesAndCompactionsIsAPrefix(@ForAll long seed, @ForAll boolean flushFirst)
            throws Exception {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        Options options = options(fs);
        List<List<Op>> acknowledged = Collections.synchronizedList(new ArrayList<>());
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults().withWriteBufferSize(64 << 10));
            List<ColumnFamily> families = List.of(db.defaultColumnFamily(), a);
            for (int i = 0; i < 200; i++) {
                write(db, families, random, acknowledged);
                if (random.nextInt(60) == 0) {
                    db.flush();
                }
            }
            CountDownLatch racing = new CountDownLatch(1);
            AtomicBoolean stop = new AtomicBoolean();
            Random raceRandom = new Random(random.nextLong());
            CompletableFuture<Void> race = CompletableFuture.runAsync(() -> {
                int n = 0;
                while (!stop.get()) {
                    write(db, families, raceRandom, acknowledged);
                    if (++n == 20) {
                        racing.countDown();
                    }
                    if (raceRandom.nextInt(40) == 0) {
                        db.flush();
                    }
                    if (raceRandom.nextInt(150) == 0) {
                        db.compactRange(families.get(raceRandom.nextInt(2)), null, null);
                    }
                }
            });
            assertTrue(racing.await(1, TimeUnit.MINUTES), "race thread did not start writing");
            int before = acknowledged.size();
            db.checkpoint(TARGET, flushFirst);
            stop.set(true);
            race.get(1, TimeUnit.MINUTES);
            assertThrows(FileAlreadyExistsException.class, () -> db.checkpoint(TARGET));
            List<List<Op>> writes = List.copyOf(acknowledged);
            try (Db copy = Db.open(TARGET, options)) {
                ColumnFamily copyA = copy.columnFamily("a").orElseThrow();
                TreeMap<String, String> actual = contents(copy, List.of(copy.defaultColumnFamily(), copyA));
                int prefix = matchingPrefix(writes, before, actual);
                assertTrue(prefix >= 0, () -> "checkpoint is not a prefix of the acknowledged writes holding the "
                        + before + " acknowledged before it; " + writes.size() + " acknowledged in all");
            }
            // The source is unaffected and still writable.
            write(db, families, random, acknowledged);
            assertEquals(model(acknowledged, acknowledged.size()), contents(db, families));
        }
    }

    @Property(tries = 40)
    void crashDuringCheckpointLeavesSourceIntactAndTargetRefusedOrRight(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 120) int failAfter, @ForAll boolean flushFirst)
            throws Exception {
        Random random = new Random(seed);
        MemFileSystem memory = new MemFileSystem();
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem(memory);
        Options options = options(fs);
        List<List<Op>> acknowledged = new ArrayList<>();
        boolean returned = false;
        Db db = Db.open(DIR, options);
        try {
            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults());
            List<ColumnFamily> families = List.of(db.defaultColumnFamily(), a);
            for (int i = 0; i < 150; i++) {
                write(db, families, random, acknowledged);
                if (random.nextInt(50) == 0) {
                    db.flush();
                }
            }
            db.syncWal();
            fs.failAt(failAfter, true);
            try {
                db.checkpoint(TARGET, flushFirst);
                returned = true;
            } catch (IOException | RuntimeException injected) {
                assertTrue(TestStates.causedBy(injected, FaultInjectingFileSystem.InjectedIOException.class),
                        () -> "unexpected failure " + injected);
            }
        } finally {
            memory.crash(new Random(seed));
            try {
                db.close();
            } catch (RuntimeException expected) {
                // a dead process's handles
            }
            fs.heal();
        }
        TreeMap<String, String> expected = model(acknowledged, acknowledged.size());
        try (Db source = Db.open(DIR, options)) {
            assertEquals(expected, contents(source, List.of(source.defaultColumnFamily(),
                    source.columnFamily("a").orElseThrow())));
        }
        // A checkpoint that returned is durable: it must survive the crash whole. One that failed may have
        // left nothing, or a directory that is refused or right.
        if (!returned && (!memory.exists(TARGET) || memory.list(TARGET).isEmpty())) {
            return; // stopped before writing anything: no checkpoint at all
        }
        Db copy;
        try {
            copy = Db.open(TARGET, options);
        } catch (CorruptionException refused) {
            if (returned) {
                fail("a checkpoint that returned was refused after the crash: " + refused.getMessage());
            }
            return;
        }
        try (copy) {
            ColumnFamily copyA = copy.columnFamily("a").orElse(null);
            if (copyA == null) {
                fail("checkpoint opened without its column family");
            }
            assertEquals(expected, contents(copy, List.of(copy.defaultColumnFamily(), copyA)));
        }
    }

    @Property(tries = 5)
    void checkpointOfAnIdleDatabaseEqualsIt(@ForAll @LongRange(min = 0, max = 1000) long seed) throws Exception {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        Options options = options(fs);
        List<List<Op>> acknowledged = new ArrayList<>();
        try (Db db = Db.open(DIR, options)) {
            ColumnFamily a = db.createColumnFamily("a", ColumnFamilyOptions.defaults());
            for (int i = 0; i < 100; i++) {
                write(db, List.of(db.defaultColumnFamily(), a), random, acknowledged);
            }
            db.checkpoint(TARGET, true);
        }
        try (Db copy = Db.open(TARGET, options)) {
            assertEquals(model(acknowledged, acknowledged.size()),
                    contents(copy, List.of(copy.defaultColumnFamily(), copy.columnFamily("a").orElseThrow())));
        }
    }

    private static void write(Db db, List<ColumnFamily> families, Random random, List<List<Op>> acknowledged) {
        List<Op> ops = new ArrayList<>();
        WriteBatch batch = new WriteBatch();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            int family = random.nextInt(2);
            int key = random.nextInt(64);
            byte[] value = random.nextInt(5) == 0 ? null : TestStates.randomBytes(random, 400);
            byte[] keyBytes = new byte[] {(byte) key};
            if (value == null) {
                batch.delete(families.get(family), keyBytes);
            } else {
                batch.put(families.get(family), keyBytes, value);
            }
            ops.add(new Op(family, key, value));
        }
        db.write(batch, WriteOptions.DEFAULT);
        acknowledged.add(ops);
    }

    private static void apply(List<Op> write, TreeMap<String, String> model) {
        for (Op op : write) {
            String key = op.family() + ":" + op.key();
            if (op.value() == null) {
                model.remove(key);
            } else {
                model.put(key, TestStates.hex(op.value()));
            }
        }
    }

    private static TreeMap<String, String> model(List<List<Op>> writes, int length) {
        TreeMap<String, String> model = new TreeMap<>();
        for (int i = 0; i < length; i++) {
            apply(writes.get(i), model);
        }
        return model;
    }

    /** The shortest prefix of at least {@code minimum} writes whose model equals {@code actual}, or -1. */
    private static int matchingPrefix(List<List<Op>> writes, int minimum, TreeMap<String, String> actual) {
        TreeMap<String, String> model = model(writes, minimum);
        for (int length = minimum; ; length++) {
            if (model.equals(actual)) {
                return length;
            }
            if (length == writes.size()) {
                return -1;
            }
            apply(writes.get(length), model);
        }
    }

    private static TreeMap<String, String> contents(Db db, List<ColumnFamily> families) {
        TreeMap<String, String> state = new TreeMap<>();
        for (int f = 0; f < families.size(); f++) {
            try (DbIterator it = db.iterator(ReadOptions.DEFAULT, families.get(f))) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    state.put(f + ":" + (it.key()[0] & 0xff), TestStates.hex(it.value()));
                }
            }
        }
        return state;
    }
}
