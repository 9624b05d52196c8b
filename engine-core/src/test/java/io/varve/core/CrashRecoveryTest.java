package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Simulated machine crashes at random points. After each crash the recovered state must equal the state
 * after some prefix of the acknowledged writes (no holes), and that prefix must include every write
 * acknowledged with sync (or followed by a completed flush). Trials use tiny memtables and random explicit
 * flushes, so crashes also land around table writes and manifest edits, and each trial runs several crash
 * generations, so recovery's repairs are themselves recovered from. Failures print the seed to reproduce.
 */
class CrashRecoveryTest {

    private static final Path DIR = Path.of("/crash");

    @Test
    void recoveredStateIsAPrefixHoldingEverySyncedWrite() throws IOException {
        long baseSeed = Long.getLong("varve.test.seed", System.nanoTime());
        for (int trial = 0; trial < 300; trial++) {
            long seed = baseSeed + trial;
            try {
                runTrial(seed);
            } catch (AssertionError | IOException | RuntimeException e) {
                throw new AssertionError("crash trial failed; reproduce with -Dvarve.test.seed=" + seed, e);
            }
        }
    }

    private static void runTrial(long seed) throws IOException {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        // Small levels and a level-0 trigger of 2, so crashes also land around compactions' outputs and edits.
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withUnorderedWrite(random.nextInt(4) == 0)
                .withCompactionSettings(new io.varve.core.compaction.CompactionSettings(2, 64 << 10, 4, 16 << 10));
        TreeMap<String, String> recovered = new TreeMap<>();
        int generations = 1 + random.nextInt(3);
        for (int generation = 0; generation < generations; generation++) {
            List<TestStates.Write> writes = new ArrayList<>();
            int lastSynced = 0;
            try (Db db = Db.open(DIR, options)) {
                TreeMap<String, String> afterOpen = TestStates.contents(db);
                if (!afterOpen.equals(recovered)) {
                    fail("reopening without a crash changed the state");
                }
                int count = random.nextInt(40);
                for (int i = 0; i < count; i++) {
                    TestStates.Write write = randomWrite(random);
                    db.write(write.toBatch(), write.synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
                    writes.add(write);
                    if (write.synced()) {
                        lastSynced = writes.size();
                    }
                    if (random.nextInt(15) == 0) {
                        // A finished flush makes everything before it durable in a table and the manifest.
                        db.flush();
                        lastSynced = writes.size();
                    }
                }
                fs.crash(random);
                // The old instance's handles are dead now; closing it must not throw or touch the new state.
                TestStates.closeAfterCrash(db);
            }
            try (Db db = Db.open(DIR, options)) {
                TreeMap<String, String> state = TestStates.contents(db);
                int prefix = TestStates.matchingPrefix(recovered, writes, lastSynced, state);
                assertTrue(prefix >= 0, () -> "recovered state is not a prefix of acknowledged writes holding all "
                        + "synced ones; synced up to " + writes.size() + " writes");
                recovered = state;
            }
        }
    }

    private static TestStates.Write randomWrite(Random random) {
        List<Map.Entry<String, byte[]>> ops = new ArrayList<>();
        int n = 1 + random.nextInt(random.nextInt(10) == 0 ? 20 : 3);
        for (int i = 0; i < n; i++) {
            String key = TestStates.hex(new byte[] {(byte) random.nextInt(24)});
            byte[] value = random.nextInt(5) == 0 ? null : TestStates.randomBytes(random, random.nextInt(8) == 0 ? 40_000 : 50);
            ops.add(new java.util.AbstractMap.SimpleEntry<>(key, value));
        }
        return new TestStates.Write(ops, random.nextInt(3) == 0);
    }
}
