package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ExpirySweeperTest {

    @Test
    void removesOnlyExpiredKeysAndRestsWhenNothingCanExpire(@TempDir Path dir) throws Exception {
        AtomicLong now = new AtomicLong(1_000_000);
        try (Db db = Db.open(dir, Options.defaults().withWriteBufferSize(1 << 20))) {
            Keyspace ks = new Keyspace(db, false, now::get);
            ExpirySweeper sweeper = new ExpirySweeper(ks);
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < 30; i++) {
                ks.putMetadata(batch, ("k" + i).getBytes(), Metadata.string("v".getBytes(), i % 3 == 0 ? now.get() + 10 : 0));
            }
            ks.commit(batch);
            assertEquals(0, sweeper.sweep(100), "nothing has expired yet");
            now.addAndGet(11);
            int removed = 0;
            for (int round = 0; round < 10; round++) {
                removed += sweeper.sweep(7); // small budget: several rounds, wrapping around the keyspace
            }
            assertEquals(10, removed);
            assertEquals(10, ks.expiredKeysRemoved());
            assertNull(db.get(KeyEncoding.metadataKey("k0".getBytes())), "deleted, not just hidden");
            assertEquals(20, ks.countKeys()[0]);
            for (int round = 0; round < 5; round++) {
                sweeper.sweep(100); // a full pass sees no expiring key: the sweeper goes idle
            }
            WriteBatch late = new WriteBatch();
            ks.putMetadata(late, "late".getBytes(), Metadata.string("v".getBytes(), now.get() + 1));
            ks.commit(late);
            now.addAndGet(2);
            removed = 0;
            for (int round = 0; round < 5; round++) {
                removed += sweeper.sweep(100);
            }
            assertEquals(1, removed, "a new expiring write wakes the sweeper");
        }
    }
}
