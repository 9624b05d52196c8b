package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Random workloads (with purges) cut short by an I/O failure at a random operation, then a crash keeping a
 * random part of the unsynced bytes: the recovered state must be the model after some prefix of the
 * attempted batches that contains every acknowledged synced one. This is where a crash in the middle of a
 * purge (copies half written, files half deleted) gets exercised.
 */
class FaultProperties {

    private static String where(Throwable e) {
        for (StackTraceElement frame : e.getStackTrace()) {
            String m = frame.getMethodName();
            if (frame.getClassName().startsWith("io.varve.core")) {
                continue;
            }
            if (m.equals("purge") || m.equals("open") || m.equals("write") || m.equals("close")) {
                return frame.getClassName().substring(frame.getClassName().lastIndexOf('.') + 1) + "." + m;
            }
        }
        return "elsewhere";
    }

    @Provide
    Arbitrary<List<Workload.Action>> actions() {
        return Workload.actions(4, 1).list().ofMinSize(10).ofMaxSize(60)
                .withSizeDistribution(RandomDistribution.uniform());
    }

    @Property(tries = 300)
    void aFailedRunRecoversToAPrefix(@ForAll("actions") List<Workload.Action> actions,
            @ForAll @IntRange(min = 1, max = 3000) int failAt, @ForAll boolean forever, @ForAll long crashSeed)
            throws Exception {
        MemFileSystem mem = new MemFileSystem();
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem(mem);
        RaftLogOptions options = RaftLogModelProperties.smallFiles(mem).withFileSystem(fs);
        Path dir = Path.of("/faults");
        fs.failAt(failAt, forever);
        RefModel model = new RefModel();
        List<List<Op>> attempted = new ArrayList<>();
        int synced = 0;
        IOException error = null;
        RaftLogEngine engine = null;
        try {
            engine = RaftLogEngine.open(dir, options);
            for (Workload.Action action : actions) {
                switch (action) {
                    case Workload.Write w -> {
                        List<Op> ops = Workload.resolve(w.ops(), model);
                        if (!model.accepts(ops)) {
                            continue;
                        }
                        attempted.add(ops);
                        engine.write(Op.toBatch(ops), w.sync());
                        model.apply(ops);
                        if (w.sync()) {
                            synced = attempted.size();
                        }
                    }
                    case Workload.Purge p -> engine.purgeExpiredFiles();
                    case Workload.Reopen r -> {
                        RaftLogEngine closing = engine;
                        engine = null;
                        closing.close();
                        engine = RaftLogEngine.open(dir, options);
                    }
                    default -> throw new AssertionError(action);
                }
            }
        } catch (IOException e) {
            error = e;
        }
        Statistics.label("wrote over purged files").collect(engine != null && engine.stats().filesRecycled() > 0);
        Statistics.label("failed in").collect(error == null ? "no failure" : where(error));
        fs.heal();
        mem.crash(new Random(crashSeed));
        if (engine != null) {
            EngineChecks.closeCrashed(engine);
        }
        try (RaftLogEngine reopened = RaftLogEngine.open(dir, options.withFileSystem(mem))) {
            RefModel actual = RefModel.readFrom(reopened, Workload.KEYS);
            RefModel state = new RefModel();
            for (int k = 0; k < synced; k++) {
                state.apply(attempted.get(k));
            }
            for (int k = synced; ; k++) {
                if (state.equals(actual)) {
                    break;
                }
                if (k == attempted.size()) {
                    fail("after " + (error == null ? "no error" : error) + ": recovered " + actual
                            + " is not the state after any prefix of " + attempted.size() + " attempted batches "
                            + "containing the " + synced + " synced ones");
                }
                state.apply(attempted.get(k));
            }
            assertNotNull(actual);
        }
    }
}
