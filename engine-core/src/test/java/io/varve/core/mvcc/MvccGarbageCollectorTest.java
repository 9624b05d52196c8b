package io.varve.core.mvcc;

import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.compaction.filters.MvccKeys;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.RangeLatch;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The collector's value deletes respect the database's range latch, as an ingestion with allowWrite needs. */
class MvccGarbageCollectorTest {

    @Test
    void valueDeletesWaitForAHeldRangeLatch() throws Exception {
        MvccGarbageCollector gc = new MvccGarbageCollector();
        Options options = Options.defaults().withFileSystem(new MemFileSystem());
        try (Db db = Db.open(Path.of("/gc"), options)) {
            ColumnFamily write = db.createColumnFamily("write",
                    ColumnFamilyOptions.defaults().withCompactionFilter(gc.writeFamilyFilter()));
            ColumnFamily values = db.defaultColumnFamily();
            gc.start(db, values);
            byte[] user = "k".getBytes();
            for (long ts = 10; ts <= 20; ts += 10) {
                db.write(new WriteBatch().put(values, MvccKeys.versionedKey(user, ts - 1), ("v" + ts).getBytes())
                        .put(write, MvccKeys.versionedKey(user, ts), MvccKeys.writeRecord(MvccKeys.PUT, ts - 1)),
                        WriteOptions.DEFAULT);
            }
            byte[] oldValue = MvccKeys.versionedKey(user, 9);
            gc.setSafePoint(25);
            RangeLatch.Guard held = db.rangeLatch().acquire(oldValue, oldValue);
            try {
                db.compactRange(write, null, null);
                // Polled: the collector's request is visible only as a queued waiter. The deadline detects a hang.
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (db.rangeLatch().queuedCount() < 2) {
                    assertTrue(System.nanoTime() < deadline, "the collector never asked for the latch");
                    LockSupport.parkNanos(1_000_000);
                }
                assertArrayEquals("v10".getBytes(), db.get(values, oldValue), "deleted while the latch was held");
                assertEquals(0, gc.deletedValues());
            } finally {
                held.close();
            }
            gc.awaitDeletes();
            assertNull(db.get(values, oldValue));
            assertArrayEquals("v20".getBytes(), db.get(values, MvccKeys.versionedKey(user, 19)));
        } finally {
            gc.close();
        }
    }
}
