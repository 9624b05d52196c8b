package io.varve.core.internal;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WalRecoveryMode;
import io.varve.core.WriteBatch;
import io.varve.base.CorruptionException;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.batch.WriteBatchFormat;
import io.varve.core.internal.wal.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A log written by a version that accepted entries larger than a table can hold: each recovery mode opens it
 * as docs/durability.md says. Most cases lower the limit recovery applies ({@link WalReplay#ENTRY_LIMIT}) so
 * that ordinary small writes play the oversized entry: the rules are the same at any size, and a real one
 * costs hundreds of megabytes of heap per open. One case writes a real oversized entry straight into a log.
 */
class OversizedLogRecordTest {

    private static final Path DIR = Path.of("/db");
    private static final long TEST_LIMIT = 1024;
    private static final int BEFORE = 20;
    private static final int AFTER = 10;

    private final FileSystem fs = new MemFileSystem();

    @TempDir
    Path disk;

    private Options options(WalRecoveryMode mode) {
        return Options.defaults().withFileSystem(fs).withWalRecovery(mode);
    }

    private static byte[] key(String prefix, int i) {
        return (prefix + i).getBytes();
    }

    /** {@code before*} keys, then one entry over the test limit, then {@code after*} keys, all in the log. */
    private void writeLogWithOversizedEntry() throws IOException {
        try (Db db = Db.open(DIR, options(WalRecoveryMode.POINT_IN_TIME))) {
            for (int i = 0; i < BEFORE; i++) {
                db.put(key("before", i), key("v", i));
            }
            db.put("big".getBytes(), new byte[(int) TEST_LIMIT]);
            for (int i = 0; i < AFTER; i++) {
                db.put(key("after", i), key("v", i));
            }
        }
    }

    private Db openWithTestLimit(Options options, boolean readOnly) throws Exception {
        return ScopedValue.where(WalReplay.ENTRY_LIMIT, TEST_LIMIT)
                .call(() -> readOnly ? Db.openReadOnly(DIR, options) : Db.open(DIR, options));
    }

    private static void assertPrefixBeforeOversized(Db db) {
        for (int i = 0; i < BEFORE; i++) {
            assertArrayEquals(key("v", i), db.get(key("before", i)));
        }
        assertNull(db.get("big".getBytes()));
        for (int i = 0; i < AFTER; i++) {
            assertNull(db.get(key("after", i)), "a write after the oversized record was kept: a hole");
        }
    }

    @Test
    void pointInTimeKeepsTheWritesBeforeTheOversizedRecordAndCountsIt() throws Exception {
        writeLogWithOversizedEntry();
        try (Db db = openWithTestLimit(options(WalRecoveryMode.POINT_IN_TIME), false)) {
            assertPrefixBeforeOversized(db);
            assertEquals(1, db.getLongProperty("varve.recovery-oversized-records"));
            db.put("new".getBytes(), "x".getBytes());
        }
        // The record was cut off with the rest of the log: the next open finds nothing to report.
        try (Db db = openWithTestLimit(options(WalRecoveryMode.ABSOLUTE_CONSISTENCY), false)) {
            assertPrefixBeforeOversized(db);
            assertArrayEquals("x".getBytes(), db.get("new".getBytes()));
            assertEquals(0, db.getLongProperty("varve.recovery-oversized-records"));
        }
    }

    @Test
    void strictModesRefuseNamingTheLogAndTheRecordAndChangeNothing() throws Exception {
        writeLogWithOversizedEntry();
        for (WalRecoveryMode mode : new WalRecoveryMode[] {WalRecoveryMode.ABSOLUTE_CONSISTENCY,
                WalRecoveryMode.TOLERATE_CORRUPTED_TAIL}) {
            CorruptionException refused = assertThrows(CorruptionException.class,
                    () -> openWithTestLimit(options(mode), false), mode.name());
            assertTrue(refused.file().toString().endsWith(DbFiles.LOG_SUFFIX), refused.getMessage());
            assertTrue(refused.offset() > 0, "the record follows the earlier writes: " + refused.getMessage());
            assertTrue(refused.getMessage().contains("over the " + TEST_LIMIT), refused.getMessage());
        }
        // Nothing was cut: without the lowered limit every write is still there.
        try (Db db = Db.open(DIR, options(WalRecoveryMode.ABSOLUTE_CONSISTENCY))) {
            assertEquals(TEST_LIMIT, db.get("big".getBytes()).length);
            assertArrayEquals(key("v", AFTER - 1), db.get(key("after", AFTER - 1)));
        }
    }

    @Test
    void readOnlyOpenStopsBeforeTheOversizedRecordWithoutCuttingTheLog() throws Exception {
        writeLogWithOversizedEntry();
        try (Db db = openWithTestLimit(options(WalRecoveryMode.POINT_IN_TIME), true)) {
            assertPrefixBeforeOversized(db);
            assertEquals(1, db.getLongProperty("varve.recovery-oversized-records"));
        }
        try (Db db = Db.openReadOnly(DIR, options(WalRecoveryMode.POINT_IN_TIME))) {
            assertEquals(TEST_LIMIT, db.get("big".getBytes()).length);
        }
    }

    @Test
    void anEntryOfAnOversizedRecordInADroppedFamilyIsNotReported() throws Exception {
        try (Db db = Db.open(DIR, options(WalRecoveryMode.POINT_IN_TIME))) {
            ColumnFamily family = db.createColumnFamily("gone", ColumnFamilyOptions.defaults());
            db.put(family, "big".getBytes(), new byte[(int) TEST_LIMIT]);
            db.put("kept".getBytes(), "v".getBytes());
            db.dropColumnFamily(family);
        }
        try (Db db = openWithTestLimit(options(WalRecoveryMode.ABSOLUTE_CONSISTENCY), false)) {
            assertArrayEquals("v".getBytes(), db.get("kept".getBytes()));
            assertEquals(0, db.getLongProperty("varve.recovery-oversized-records"));
        }
    }

    /**
     * A real entry just over the table limit, written into a log as an older version did (today's writes
     * refuse it). About a gigabyte of heap at peak: the batch, its log record and the record read back.
     */
    @Test
    void aLogHoldingAnEntryOverTheTableLimitOpens() throws Exception {
        long sequence;
        try (Db db = Db.open(disk, Options.defaults())) {
            for (int i = 0; i < BEFORE; i++) {
                db.put(key("before", i), key("v", i));
            }
            sequence = DbTestAccess.lastAllocatedSequence(db);
        }
        long number = 0;
        for (String name : Options.defaults().fileSystem().list(disk)) {
            OptionalLong n = DbFiles.parseNumber(name, DbFiles.LOG_SUFFIX);
            number = Math.max(number, n.orElse(0));
            n = DbFiles.parseNumber(name, DbFiles.TABLE_SUFFIX);
            number = Math.max(number, n.orElse(0));
        }
        FileSystem real = Options.defaults().fileSystem();
        try (WalWriter log = new WalWriter(real.create(DbFiles.log(disk, number + 1)), number + 1)) {
            byte[] value = new byte[(int) (WriteBatch.MAX_ENTRY_BYTES - 2)];
            Arrays.fill(value, (byte) 'v');
            log.append(batch(sequence + 1, "big".getBytes(), value));
            value = null;
            log.append(batch(sequence + 2, "after".getBytes(), "v".getBytes()));
            log.flush();
            log.sync();
        }
        try (Db db = Db.open(disk, Options.defaults())) {
            assertArrayEquals(key("v", 0), db.get(key("before", 0)));
            assertNull(db.get("big".getBytes()));
            assertNull(db.get("after".getBytes()));
            assertEquals(1, db.getLongProperty("varve.recovery-oversized-records"));
        }
    }

    private static MemorySegment batch(long sequence, byte[] key, byte[] value) {
        WriteBatchBuilder builder = new WriteBatchBuilder();
        builder.add(ValueKind.PUT, WriteBatchFormat.DEFAULT_COLUMN_FAMILY, MemorySegment.ofArray(key),
                MemorySegment.ofArray(value));
        MemorySegment batch = MemorySegment.ofArray(builder.encode());
        WriteBatchFormat.setSequence(batch, sequence);
        return batch;
    }
}
