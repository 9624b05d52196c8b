package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeFailedException;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MergeTest {

    private static final Path DIR = Path.of("/merge");
    private static final MergeOperator ADD = MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] int64(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    /** Fails every merge; stands for an operator with a bug or one that does not understand stored operands. */
    private static final MergeOperator BROKEN = new MergeOperator() {
        @Override
        public String name() {
            return "broken";
        }

        @Override
        public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
            throw new IllegalStateException("operator bug");
        }
    };

    @Test
    void mergeIntoFamilyWithoutOperatorIsRefusedAtTheCall() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> db.merge(bytes("k"), int64(1)));
            assertTrue(e.getMessage().contains("merge operator"), e.getMessage());
            WriteBatch batch = new WriteBatch().put(bytes("a"), bytes("1")).merge(bytes("k"), int64(1));
            assertThrows(IllegalStateException.class, () -> db.write(batch, WriteOptions.DEFAULT));
            assertNull(db.get(bytes("a")), "a refused batch writes nothing");
            ColumnFamily plain = db.createColumnFamily("plain", ColumnFamilyOptions.defaults());
            assertThrows(IllegalStateException.class, () -> new WriteBatch().merge(plain, bytes("k"), int64(1)));
            ColumnFamily counters = db.createColumnFamily("counters",
                    ColumnFamilyOptions.defaults().withMergeOperator(ADD));
            db.merge(counters, bytes("k"), int64(2));
            db.write(new WriteBatch().merge(counters, bytes("k"), int64(3)), WriteOptions.DEFAULT);
            assertArrayEquals(int64(5), db.get(counters, bytes("k")));
        }
    }

    @Test
    void throwingOperatorFailsReadsButKeepsOperandsThroughCompaction() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options broken = Options.defaults().withFileSystem(fs).withMergeOperator(BROKEN);
        try (Db db = Db.open(DIR, broken)) {
            db.put(bytes("count"), int64(10));
            db.merge(bytes("count"), int64(5));
            db.merge(bytes("count"), int64(7));
            db.put(bytes("plain"), bytes("v"));
            MergeFailedException e = assertThrows(MergeFailedException.class, () -> db.get(bytes("count")));
            assertTrue(e.getMessage().contains("broken"), e.getMessage());
            assertTrue(e.getMessage().contains("636f756e74"), "names the key in hex: " + e.getMessage());
            assertEquals("broken", e.operatorName());
            try (DbIterator it = db.iterator()) {
                assertThrows(MergeFailedException.class, it::seekToFirst);
                assertFalse(it.valid(), "an iterator whose merge failed is not positioned");
                it.seek(bytes("p"));
                assertArrayEquals(bytes("plain"), it.key(), "the iterator stays usable after a failed merge");
            }
            try (DbIterator it = db.iterator()) {
                it.seekToLast();
                assertArrayEquals(bytes("plain"), it.key());
                assertThrows(MergeFailedException.class, it::prev);
            }
            // The database stays usable: other keys read and write, and flush and compaction complete.
            assertArrayEquals(bytes("v"), db.get(bytes("plain")));
            db.flush();
            db.compactRange(null, null);
            db.put(bytes("after"), bytes("w"));
            assertArrayEquals(bytes("w"), db.get(bytes("after")));
            assertTrue(((DbImpl) db).dbStatistics().compactionMergeFailures() > 0,
                    "the compaction that met the operands counted the operator's failure");
        }
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs).withMergeOperator(
                MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN)))) {
            assertArrayEquals(int64(22), db.get(bytes("count")), "no operand was lost");
        }
    }

    @Test
    void mergeOnDeletedKeyStartsFromNothing() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withMergeOperator(MergeOperators.append(bytes(",")));
        try (Db db = Db.open(DIR, options)) {
            db.merge(bytes("k"), bytes("a"));
            db.flush();
            db.merge(bytes("k"), bytes("b"));
            assertArrayEquals(bytes("a,b"), db.get(bytes("k")));
            Snapshot before = db.snapshot();
            db.delete(bytes("k"));
            db.merge(bytes("k"), bytes("c"));
            db.compactRange(null, null);
            assertArrayEquals(bytes("c"), db.get(bytes("k")));
            assertArrayEquals(bytes("a,b"), db.get(ReadOptions.DEFAULT.withSnapshot(before), bytes("k")));
            byte[] small = new byte[1];
            assertEquals(1, db.get(ReadOptions.DEFAULT, MemorySegment.ofArray(bytes("k")), MemorySegment.ofArray(small)));
            assertEquals(ReadOptions.INCOMPLETE, db.get(ReadOptions.DEFAULT.withMemtableOnly(),
                    MemorySegment.ofArray(bytes("k")), MemorySegment.ofArray(small)));
        }
    }

    /** Synced merges survive a simulated machine crash, replayed from the log or read from tables. */
    @Test
    void syncedMergesSurviveCrash() throws IOException {
        for (long seed = 0; seed < 30; seed++) {
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                    .withMergeOperator(ADD);
            TreeMap<Integer, Long> model = new TreeMap<>();
            for (int generation = 0; generation < 3; generation++) {
                Db db = Db.open(DIR, options);
                try {
                    for (var entry : model.entrySet()) {
                        assertArrayEquals(int64(entry.getValue()), db.get(new byte[] {entry.getKey().byteValue()}),
                                "seed " + seed + " key " + entry.getKey());
                    }
                    int writes = random.nextInt(60);
                    for (int i = 0; i < writes; i++) {
                        int key = random.nextInt(6);
                        long delta = random.nextInt(100) - 50;
                        if (random.nextInt(8) == 0) {
                            db.put(WriteOptions.SYNC, new byte[] {(byte) key}, int64(delta));
                            model.put(key, delta);
                        } else {
                            db.merge(WriteOptions.SYNC, db.defaultColumnFamily(),
                                    MemorySegment.ofArray(new byte[] {(byte) key}), MemorySegment.ofArray(int64(delta)));
                            model.merge(key, delta, Long::sum);
                        }
                        if (random.nextInt(20) == 0) {
                            db.flush();
                        }
                    }
                    fs.crash(random);
                } finally {
                    try {
                        db.close();
                    } catch (RuntimeException expected) {
                        // Closing after a crash fails to sync the log: the handles belong to a dead process.
                    }
                }
            }
            try (Db db = Db.open(DIR, options)) {
                for (int key = 0; key < 6; key++) {
                    Long expected = model.get(key);
                    byte[] actual = db.get(new byte[] {(byte) key});
                    if (expected == null) {
                        assertNull(actual);
                    } else {
                        assertArrayEquals(int64(expected), actual, "seed " + seed + " key " + key);
                    }
                }
                assertFalse(db.get(new byte[] {9}) != null);
            }
        }
    }

    /**
     * A get reuses its thread's lookup scratch; a merge operator that reads the database from inside that get
     * must get a lookup of its own, and the outer get its own answer.
     */
    @Test
    void aMergeOperatorMayReadTheDatabaseInsideAGet() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Db[] self = new Db[1];
        MergeOperator plusBase = new MergeOperator() {
            @Override
            public String name() {
                return "plus-base";
            }

            @Override
            public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
                byte[] base = new byte[8];
                long length = self[0].get(ReadOptions.DEFAULT, MemorySegment.ofArray(bytes("base")),
                        MemorySegment.ofArray(base));
                long sum = length == 8 ? MemorySegment.ofArray(base).get(LE_LONG, 0) : 0;
                for (MemorySegment operand : operands) {
                    sum += operand.get(LE_LONG, 0);
                }
                return int64(sum);
            }
        };
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs).withMergeOperator(plusBase))) {
            self[0] = db;
            db.put(bytes("base"), int64(100));
            db.merge(bytes("k"), int64(1));
            db.merge(bytes("k"), int64(2));
            byte[] out = new byte[8];
            assertEquals(8, db.get(ReadOptions.DEFAULT, MemorySegment.ofArray(bytes("k")), MemorySegment.ofArray(out)));
            assertArrayEquals(int64(103), out);
            assertArrayEquals(int64(103), db.get(bytes("k")));
            assertArrayEquals(int64(100), db.get(bytes("base")), "the scratch is clean again after the nested read");
        }
    }
}
