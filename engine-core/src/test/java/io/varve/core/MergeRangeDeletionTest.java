package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A range tombstone among a key's merge operands acts as a point delete at its sequence, wherever they sit. */
class MergeRangeDeletionTest {

    private static final Path DIR = Path.of("/merge-rangedel");
    private static final MergeOperator ADD = MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] KEY = bytes("k");
    private static final byte[] BEGIN = bytes("j");
    private static final byte[] END = bytes("l");

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] int64(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    private static Options options(MemFileSystem fs) {
        return Options.defaults().withFileSystem(fs).withMergeOperator(ADD);
    }

    @Test
    void operandsBelowATombstoneAreGoneInMemtablesTablesAndCompactedLevels() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            db.put(KEY, int64(100));
            db.merge(KEY, int64(1));
            db.deleteRange(BEGIN, END);
            db.merge(KEY, int64(2));
            db.merge(KEY, int64(3));
            assertReads(db, int64(5), "in the memtable");
            db.flush();
            assertReads(db, int64(5), "in a level-0 table");
            db.compactRange(null, null);
            assertReads(db, int64(5), "after compaction");
        }
        try (Db db = Db.open(DIR, options(fs))) {
            assertReads(db, int64(5), "after reopening");
        }
    }

    @Test
    void tombstoneInANewerSourceThanTheOperandsBelowIt() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            db.put(KEY, int64(100));
            db.merge(KEY, int64(1));
            db.flush();
            db.deleteRange(BEGIN, END);
            db.flush();
            db.merge(KEY, int64(7));
            assertReads(db, int64(7), "operand in the memtable, tombstone and base in tables");
        }
    }

    @Test
    void compactionKeepsOperandsOnEitherSideOfATombstoneApartForASnapshot() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            db.put(bytes("other"), int64(0));
            // Open before every entry of KEY: all of them lie above every snapshot, the zone compaction folds.
            try (Snapshot before = db.snapshot()) {
                db.put(KEY, int64(100));
                db.merge(KEY, int64(1));
                db.deleteRange(BEGIN, END);
                db.merge(KEY, int64(2));
                db.merge(KEY, int64(3));
                db.compactRange(null, null);
                assertReads(db, int64(5), "after compaction with a snapshot below the tombstone");
                assertNull(db.get(ReadOptions.DEFAULT.withSnapshot(before), KEY));
            }
            db.compactRange(null, null);
            assertReads(db, int64(5), "after compaction without snapshots");
        }
    }

    @Test
    void snapshotBetweenOperandsAndTombstoneReadsTheOperands() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, options(fs))) {
            db.put(KEY, int64(100));
            db.merge(KEY, int64(1));
            try (Snapshot older = db.snapshot()) {
                db.deleteRange(BEGIN, END);
                db.merge(KEY, int64(2));
                db.compactRange(null, null);
                ReadOptions atOlder = ReadOptions.DEFAULT.withSnapshot(older);
                assertArrayEquals(int64(101), db.get(atOlder, KEY));
                try (DbIterator it = db.iterator(atOlder)) {
                    it.seekToLast();
                    assertTrue(it.valid());
                    assertArrayEquals(int64(101), it.value());
                }
                assertReads(db, int64(2), "now");
            }
        }
    }

    /** get, multiGet, and an iterator forward and backward all read {@code expected} for KEY. */
    private static void assertReads(Db db, byte[] expected, String where) {
        assertArrayEquals(expected, db.get(KEY), "get " + where);
        assertArrayEquals(expected, db.multiGet(ReadOptions.DEFAULT, List.of(bytes("a"), KEY)).get(1),
                "multiGet " + where);
        List<byte[]> forward = new ArrayList<>();
        List<byte[]> backward = new ArrayList<>();
        try (DbIterator it = db.iterator(ReadOptions.DEFAULT.withLowerBound(BEGIN).withUpperBound(END))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                forward.add(it.value());
            }
            for (it.seekToLast(); it.valid(); it.prev()) {
                backward.add(it.value());
            }
            it.seek(KEY);
            assertTrue(it.valid());
            it.prev();
            assertFalse(it.valid(), "nothing before KEY in the bounds " + where);
        }
        assertArrayEquals(new byte[][] {expected}, forward.toArray(new byte[0][]), "forward scan " + where);
        assertArrayEquals(new byte[][] {expected}, backward.toArray(new byte[0][]), "backward scan " + where);
    }
}
