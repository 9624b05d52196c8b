package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** appendfsync everysec: {@link Keyspace#syncLog} makes earlier unsynced writes survive a machine crash. */
class LogSyncTest {

    private static final Path DIR = Path.of("/db");

    @Test
    void syncLogMakesEarlierWritesDurableWithoutWritingTables() throws Exception {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs);
        Db db = Db.open(DIR, options);
        Keyspace ks = new Keyspace(db, false, () -> 1_000);
        write(ks, "synced");
        ks.syncLog();
        write(ks, "unsynced");
        assertEquals(0, fs.list(DIR).stream().filter(n -> n.endsWith(".sst")).count(),
                "syncing the log must not turn the memtable into a table");
        fs.crash();
        closeQuietly(db);
        try (Db reopened = Db.open(DIR, options)) {
            assertArrayEquals(Metadata.string("v".getBytes(), 0).encode(),
                    reopened.get(KeyEncoding.metadataKey("synced".getBytes())));
            assertNull(reopened.get(KeyEncoding.metadataKey("unsynced".getBytes())),
                    "the crash loses what was written after the last sync (so the test can tell)");
        }
    }

    private static void write(Keyspace ks, String key) {
        WriteBatch batch = new WriteBatch();
        ks.putMetadata(batch, key.getBytes(), Metadata.string("v".getBytes(), 0));
        ks.commit(batch);
    }

    private static void closeQuietly(Db db) {
        try {
            db.close();
        } catch (RuntimeException expected) {
            // the crashed instance's handles are dead
        }
    }
}
