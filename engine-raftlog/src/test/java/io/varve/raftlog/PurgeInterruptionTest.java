package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A purge interrupted at every one of its file-system operations, then a crash (keeping a random part of the
 * unsynced bytes): nothing may be lost. The log is set up so that purge copies each group's entries in
 * several chunks and then compacts the rewrite queue, the case where a half-written copy could cut off
 * entries that were only in the rewrite queue.
 */
class PurgeInterruptionTest {
    private static final Path DIR = Path.of("/interrupted");

    private static RaftLogOptions options(FaultInjectingFileSystem fs) {
        return RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(8 << 10).withPurgeThreshold(8 << 10)
                .withPurgeRewriteMaxEntries(1000).withRewriteGarbageRatio(0).withCompressionThreshold(1 << 20);
    }

    /** Builds the log; returns the model and leaves the engine open with everything synced. */
    private static RefModel build(RaftLogEngine engine) throws IOException {
        RefModel model = new RefModel();
        Random random = new Random(11);
        for (int round = 0; round < 20; round++) {
            List<Op> ops = new ArrayList<>();
            for (int g = 0; g < 3; g++) {
                long first = model.lastIndex(g) < 0 ? 1 : model.lastIndex(g) + 1;
                List<byte[]> es = new ArrayList<>();
                for (int k = 0; k < 3; k++) {
                    byte[] e = new byte[700];
                    random.nextBytes(e);
                    es.add(e);
                }
                ops.add(new Op.Append(g, first, es));
                ops.add(new Op.Put(g, Workload.KEYS.get(0), new byte[] {(byte) round}));
            }
            engine.write(Op.toBatch(ops), true);
            model.apply(ops);
            if (round == 9) {
                engine.purgeExpiredFiles(); // moves the first half to the rewrite queue
            }
        }
        return model;
    }

    @Test
    void aPurgeCutShortAtAnyOperationLosesNothing() throws Exception {
        FaultInjectingFileSystem probe = new FaultInjectingFileSystem(new MemFileSystem());
        long before;
        try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(probe))) {
            build(engine);
            before = probe.operationCount();
            engine.purgeExpiredFiles();
            EngineStats stats = engine.stats();
            assertTrue(stats.rewriteQueueCompactions() >= 1, "the rewrite queue was compacted: " + stats);
        }
        long purgeOps = probe.operationCount() - before;
        assertTrue(purgeOps > 20, "purge did " + purgeOps + " operations");

        for (long n = 1; n <= purgeOps; n++) {
            for (boolean forever : new boolean[] {false, true}) {
                MemFileSystem mem = new MemFileSystem();
                FaultInjectingFileSystem fs = new FaultInjectingFileSystem(mem);
                RefModel model;
                RaftLogEngine engine = RaftLogEngine.open(DIR, options(fs));
                model = build(engine);
                fs.failAt(n, forever);
                try {
                    engine.purgeExpiredFiles();
                } catch (IOException expected) {
                    // the point of the test
                }
                fs.heal();
                mem.crash(new Random(n));
                EngineChecks.closeCrashed(engine);
                try (RaftLogEngine reopened = RaftLogEngine.open(DIR, options(fs))) {
                    assertEquals(model, RefModel.readFrom(reopened, Workload.KEYS),
                            "purge failed at its operation " + n + (forever ? " and after" : ""));
                    reopened.purgeExpiredFiles(); // and a later purge still works
                    assertEquals(model, RefModel.readFrom(reopened, Workload.KEYS));
                }
                try (RaftLogEngine reopened = RaftLogEngine.open(DIR, options(fs))) {
                    assertEquals(model, RefModel.readFrom(reopened, Workload.KEYS));
                }
            }
        }
    }
}
