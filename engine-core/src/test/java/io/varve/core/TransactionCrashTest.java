package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.txn.TransactionOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A crash at any point keeps each committed transaction whole or drops it whole, and keeps every synced one. */
class TransactionCrashTest {

    private static final int KEYS_PER_TRANSACTION = 3;

    @Test
    void eachTransactionSurvivesACrashWholeOrNotAtAll() throws IOException {
        long baseSeed = Long.getLong("varve.test.seed", System.nanoTime());
        for (int trial = 0; trial < 60; trial++) {
            long seed = baseSeed + trial;
            Random random = new Random(seed);
            MemFileSystem fs = new MemFileSystem();
            Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
            int committed = 1 + random.nextInt(40);
            int lastSynced = -1;
            Db db = Db.open(Path.of("/t"), options);
            for (int t = 0; t < committed; t++) {
                boolean sync = random.nextInt(4) == 0;
                try (Transaction tx = db.beginTransaction(sync ? WriteOptions.SYNC : WriteOptions.DEFAULT,
                        TransactionOptions.optimistic())) {
                    for (int k = 0; k < KEYS_PER_TRANSACTION; k++) {
                        tx.put(key(t, k), ("v" + t).getBytes(StandardCharsets.UTF_8));
                    }
                    tx.commit();
                }
                if (sync) {
                    lastSynced = t;
                }
            }
            fs.crash(random);
            try {
                db.close();
            } catch (RuntimeException handlesOfTheCrashedProcess) {
                // expected: the files were open in the "process" that crashed
            }
            try (Db reopened = Db.open(Path.of("/t"), options)) {
                boolean gap = false;
                for (int t = 0; t < committed; t++) {
                    int present = 0;
                    for (int k = 0; k < KEYS_PER_TRANSACTION; k++) {
                        if (reopened.get(key(t, k)) != null) {
                            present++;
                        }
                    }
                    String context = "seed " + seed + ", transaction " + t;
                    assertTrue(present == 0 || present == KEYS_PER_TRANSACTION, context + ": " + present + " of its keys");
                    if (t <= lastSynced) {
                        assertEquals(KEYS_PER_TRANSACTION, present, context + " was synced");
                    }
                    if (present == 0) {
                        gap = true;
                    } else {
                        assertTrue(!gap, context + " survived after an earlier one was lost");
                    }
                }
            }
        }
    }

    private static byte[] key(int transaction, int k) {
        return ("t" + transaction + "-k" + k).getBytes(StandardCharsets.UTF_8);
    }
}
