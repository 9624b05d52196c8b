package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.base.fs.MemFileSystem;
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
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Crash tests on {@link MemFileSystem}: random batches (some synced), purges, and machine crashes that drop
 * unsynced data (all of it, or a random prefix of each file's unsynced bytes, which tears batches). After each
 * crash the recovered state must equal the model after some prefix of the acknowledged batches that includes
 * every synced one: nothing synced is lost and nothing later survives without everything before it.
 */
class CrashProperties {

    record Crash(long seed, boolean tearWrites) implements Workload.Action {
    }

    @Provide
    Arbitrary<List<Workload.Action>> actions() {
        Arbitrary<Workload.Action> crash = net.jqwik.api.Combinators.combine(Arbitraries.longs(),
                Arbitraries.of(true, false)).as(Crash::new);
        return Arbitraries.frequencyOf(Tuple.of(10, Workload.actions(6, 0)), Tuple.of(1, crash))
                .list().ofMinSize(10).ofMaxSize(60).withSizeDistribution(RandomDistribution.uniform());
    }

    @Property(tries = 400)
    void recoveryYieldsAPrefixOfAcknowledgedBatchesContainingEverySyncedOne(
            @ForAll("actions") List<Workload.Action> actions) throws Exception {
        MemFileSystem mem = new MemFileSystem();
        Path dir = Path.of("/crash");
        // 4 KiB files: rolls, purges and files written over come within a few dozen batches.
        RaftLogOptions options = RaftLogModelProperties.smallFiles(mem).withTargetFileSize(4 << 10);
        RefModel recovered = new RefModel();       // state after the last recovery
        List<List<Op>> acknowledged = new ArrayList<>(); // batches since then, in order
        int synced = 0;                           // how many of them must survive
        int crashes = 0;
        long longestTail = 0;
        long recycledFiles = 0;
        RaftLogEngine engine = RaftLogEngine.open(dir, options);
        actions = new ArrayList<>(actions);
        actions.add(new Crash(actions.size(), true));
        for (Workload.Action action : actions) {
            switch (action) {
                case Workload.Write w -> {
                    RefModel current = replay(recovered, acknowledged, acknowledged.size());
                    List<Op> ops = Workload.resolve(w.ops(), current);
                    if (!current.accepts(ops)) {
                        continue;
                    }
                    engine.write(Op.toBatch(ops), w.sync());
                    acknowledged.add(ops);
                    if (w.sync()) {
                        synced = acknowledged.size();
                    }
                }
                case Workload.Purge p -> engine.purgeExpiredFiles();
                case Crash c -> {
                    recycledFiles += engine.stats().filesRecycled();
                    if (c.tearWrites()) {
                        mem.crash(new Random(c.seed()));
                    } else {
                        mem.crash();
                    }
                    EngineChecks.closeCrashed(engine);
                    crashes++;
                    engine = RaftLogEngine.open(dir, options);
                    RefModel actual = RefModel.readFrom(engine, Workload.KEYS);
                    int prefix = matchingPrefix(recovered, acknowledged, synced, actual);
                    longestTail = Math.max(longestTail, acknowledged.size() - prefix);
                    recovered = actual;
                    acknowledged.clear();
                    synced = 0;
                }
                default -> throw new AssertionError(action);
            }
        }
        engine.close();
        Statistics.label("crashes").collect(Math.min(crashes, 4));
        Statistics.label("unsynced batches lost").collect(longestTail > 0);
        // Crashes must hit logs whose files were written over (stale tails, torn overwrites) often enough.
        Statistics.label("wrote over purged files").collect(recycledFiles > 0);
        Statistics.label("wrote over purged files").coverage(c -> c.check(true).percentage(p -> p >= 12));
    }

    /** The length k (synced <= k <= all) of the prefix whose state equals {@code actual}. */
    private static int matchingPrefix(RefModel base, List<List<Op>> batches, int synced, RefModel actual) {
        RefModel state = replay(base, batches, synced);
        for (int k = synced; ; k++) {
            if (state.equals(actual)) {
                return k;
            }
            if (k == batches.size()) {
                fail("recovered state " + actual + " is not the state after any prefix of the " + batches.size()
                        + " acknowledged batches that includes the " + synced + " synced ones; after all: " + state);
            }
            state.apply(batches.get(k));
        }
    }

    private static RefModel replay(RefModel base, List<List<Op>> batches, int n) {
        RefModel m = base.copy();
        for (int i = 0; i < n; i++) {
            m.apply(batches.get(i));
        }
        assertTrue(n <= batches.size());
        return m;
    }
}
