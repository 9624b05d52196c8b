package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.fail;

import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Purges raced by a writer that rolls to a new file while the purge's recycle renames are not yet durable,
 * and machine crashes at a random file-system operation inside that window or anywhere else, in which each
 * unsynced directory change (rename, creation, deletion) survives or is lost on its own, independently of file
 * data ({@link MemFileSystem#crashKeepingSomeNames}). After each crash the store must open, and its state
 * must be the model after a prefix of the acknowledged batches that contains every synced one.
 */
class PurgeRaceCrashProperties {
    private static final Path DIR = Path.of("/purge-race");

    /** A purge with a big synced write racing it; a crash at the {@code crashAt}-th operation (0: none). */
    record RacedPurge(int group, int salt, int crashAt, long seed) implements Workload.Action {
    }

    record Crash(long seed) implements Workload.Action {
    }

    @Provide
    Arbitrary<List<Workload.Action>> actions() {
        Arbitrary<Workload.Action> raced = Combinators.combine(Arbitraries.integers().between(0, Workload.GROUPS - 1),
                Arbitraries.integers(), Arbitraries.integers().between(0, 14), Arbitraries.longs()).as(RacedPurge::new);
        Arbitrary<Workload.Action> crash = Arbitraries.longs().map(Crash::new);
        return Arbitraries.frequencyOf(Tuple.of(12, Workload.actions(0, 0)), Tuple.of(3, raced), Tuple.of(1, crash))
                .list().ofMinSize(10).ofMaxSize(60).withSizeDistribution(RandomDistribution.uniform());
    }

    @Property(tries = 300)
    void aCrashAnywhereAroundARacedPurgeRecoversAPrefixWithEverySyncedBatch(
            @ForAll("actions") List<Workload.Action> actions) throws Exception {
        MemFileSystem mem = new MemFileSystem();
        FaultInjectingFileSystem faults = new FaultInjectingFileSystem(mem);
        PurgeRaceFileSystem fs = new PurgeRaceFileSystem(faults);
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(4 << 10)
                .withPurgeThreshold(12 << 10).withPurgeRewriteMaxEntries(30).withRewriteGarbageRatio(0.3)
                .withCompressionThreshold(1024).withRecycledFiles(3);
        History history = new History();
        boolean raced = false;
        int crashes = 0;
        RaftLogEngine engine = RaftLogEngine.open(DIR, options);
        actions = new ArrayList<>(actions);
        actions.add(new Crash(actions.size()));
        for (Workload.Action action : actions) {
            switch (action) {
                case Workload.Write w -> {
                    List<Op> ops = Workload.resolve(w.ops(), history.current());
                    if (history.current().accepts(ops)) {
                        engine.write(Op.toBatch(ops), w.sync());
                        history.acknowledge(ops, w.sync());
                    }
                }
                case RacedPurge p -> {
                    RefModel current = history.current();
                    long first = current.lastIndex(p.group()) < 0 ? 1 : current.lastIndex(p.group()) + 1;
                    // Larger than a file: the write always rolls, and takes a recycled file if the pool has one.
                    List<Op> ops = List.of(new Op.Append(p.group(), first, List.of(
                            Workload.payload(p.salt(), first, 2500), Workload.payload(p.salt(), first + 1, 2500))));
                    boolean[] attempted = {false};
                    boolean[] acknowledged = {false};
                    int failuresBefore = faults.injectedFailures().size();
                    RaftLogEngine running = engine;
                    fs.onNextWindow(() -> {
                        attempted[0] = true;
                        if (p.crashAt() > 0) {
                            faults.failAt(p.crashAt(), true);
                        }
                        CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                            try {
                                running.write(Op.toBatch(ops), true);
                            } catch (IOException e) {
                                throw new RuntimeException(e);
                            }
                        });
                        try {
                            write.get(30, TimeUnit.SECONDS);
                            acknowledged[0] = true;
                        } catch (ExecutionException failedInTheCrash) {
                            // unacknowledged: may or may not survive
                        } catch (Exception e) {
                            throw new AssertionError("the racing write hung", e);
                        }
                    });
                    try {
                        engine.purgeExpiredFiles();
                    } catch (IOException crashed) {
                        // checked below
                    }
                    fs.onNextWindow(null);
                    boolean crashed = faults.injectedFailures().size() > failuresBefore;
                    faults.heal();
                    raced |= crashed || acknowledged[0];
                    if (attempted[0]) {
                        history.acknowledge(ops, acknowledged[0]);
                    }
                    if (crashed) {
                        engine = crashAndCheck(engine, mem, faults, options, history, p.seed());
                        crashes++;
                    }
                }
                case Crash c -> {
                    engine = crashAndCheck(engine, mem, faults, options, history, c.seed());
                    crashes++;
                }
                default -> throw new AssertionError(action);
            }
        }
        engine.close();
        Statistics.label("crashes").collect(Math.min(crashes, 4));
        Statistics.label("a purge was raced").collect(raced);
        Statistics.label("a purge was raced").coverage(c -> c.check(true).percentage(p -> p >= 30));
    }

    /** Crashes the machine under {@code crashed}, reopens, and checks the recovered state. */
    private static RaftLogEngine crashAndCheck(RaftLogEngine crashed, MemFileSystem mem, FaultInjectingFileSystem faults,
            RaftLogOptions options, History history, long seed) throws Exception {
        mem.crashKeepingSomeNames(new Random(seed));
        EngineChecks.closeCrashed(crashed);
        faults.heal();
        RaftLogEngine engine = RaftLogEngine.open(DIR, options);
        history.recovered(RefModel.readFrom(engine, Workload.KEYS));
        return engine;
    }

    /** The state after the last recovery and the batches acknowledged since, some of them synced. */
    private static final class History {
        private RefModel base = new RefModel();
        private final List<List<Op>> batches = new ArrayList<>();
        private int synced;

        RefModel current() {
            return replay(batches.size());
        }

        void acknowledge(List<Op> ops, boolean sync) {
            batches.add(ops);
            if (sync) {
                synced = batches.size();
            }
        }

        void recovered(RefModel actual) {
            RefModel state = replay(synced);
            for (int k = synced; !state.equals(actual); k++) {
                if (k == batches.size()) {
                    fail("recovered " + actual + " is not the state after any prefix of the " + batches.size()
                            + " batches containing the " + synced + " synced ones");
                }
                state.apply(batches.get(k));
            }
            base = actual;
            batches.clear();
            synced = 0;
        }

        private RefModel replay(int n) {
            RefModel m = base.copy();
            for (int i = 0; i < n; i++) {
                m.apply(batches.get(i));
            }
            return m;
        }
    }
}
