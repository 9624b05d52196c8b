package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;

/**
 * Model-based test: random sequences of batches (appends with overwrites and gaps, compactions, cleans,
 * state puts and deletes), purges and reopens, with every read compared against {@link RefModel} after each
 * step. Files are 8 KiB and the purge threshold 24 KiB, so rolling, rewriting, heavy-group reporting and
 * rewrite-queue compaction all happen.
 */
class RaftLogModelProperties {

    static RaftLogOptions smallFiles(MemFileSystem fs) {
        return RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(8 << 10)
                .withPurgeThreshold(24 << 10).withPurgeRewriteMaxEntries(30).withRewriteGarbageRatio(0.3)
                .withCompressionThreshold(1024);
    }

    @Provide
    Arbitrary<List<Workload.Action>> actions() {
        return Workload.actions(6, 2).list().ofMinSize(20).ofMaxSize(80)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    @Property(tries = 400)
    void engineMatchesTheModel(@ForAll("actions") List<Workload.Action> actions) throws Exception {
        MemFileSystem mem = new MemFileSystem();
        Path dir = Path.of("/model");
        RefModel model = new RefModel();
        Random random = new Random(actions.size());
        RaftLogEngine engine = RaftLogEngine.open(dir, smallFiles(mem));
        boolean rewrote = false;
        boolean deletedAppend = false;
        boolean compactedRewrite = false;
        boolean reportedHeavy = false;
        boolean recycled = false;
        try {
            for (Workload.Action action : actions) {
                switch (action) {
                    case Workload.Write w -> {
                        List<Op> ops = Workload.resolve(w.ops(), model);
                        if (model.accepts(ops)) {
                            engine.write(Op.toBatch(ops), w.sync());
                            model.apply(ops);
                        } else {
                            RaftLogEngine current = engine;
                            assertThrows(IllegalArgumentException.class, () -> current.write(Op.toBatch(ops), w.sync()));
                        }
                    }
                    case Workload.Purge p -> {
                        EngineStats before = engine.stats();
                        List<Long> heavy = engine.purgeExpiredFiles();
                        EngineStats after = engine.stats();
                        rewrote |= after.purgeRewrites() > before.purgeRewrites();
                        deletedAppend |= after.appendFiles() < before.appendFiles();
                        compactedRewrite |= after.rewriteQueueCompactions() > before.rewriteQueueCompactions();
                        reportedHeavy |= !heavy.isEmpty();
                        // Do what a Raft store would: compact the reported groups to their last few entries.
                        for (long g : heavy) {
                            long to = Math.max(0, model.lastIndex(g) - 3);
                            engine.compactTo(g, to);
                            model.apply(List.of(new Op.Compact(g, to)));
                        }
                    }
                    case Workload.Reopen r -> {
                        recycled |= engine.stats().filesRecycled() > 0;
                        engine.close();
                        engine = RaftLogEngine.open(dir, smallFiles(mem));
                    }
                    default -> throw new AssertionError(action);
                }
                EngineChecks.assertMatches(engine, model, Workload.KEYS, random);
            }
            recycled |= engine.stats().filesRecycled() > 0;
            engine.close();
            engine = RaftLogEngine.open(dir, smallFiles(mem));
            EngineChecks.assertMatches(engine, model, Workload.KEYS, random);
            assertEquals(model, RefModel.readFrom(engine, Workload.KEYS));
            Statistics.label("purge rewrote").collect(rewrote);
            Statistics.label("purge deleted append files").collect(deletedAppend);
            Statistics.label("rewrite queue compacted").collect(compactedRewrite);
            Statistics.label("heavy groups reported").collect(reportedHeavy);
            Statistics.label("wrote over purged files").collect(recycled);
        } finally {
            engine.close();
        }
    }
}
