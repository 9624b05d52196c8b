package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Suffix truncations mixed with Raft appends, prefix compactions, purges (small files, so entries are
 * rewritten and files deleted), reopens and crashes, every read checked against a per-group TreeMap. All
 * writes are synced, so a crash must lose nothing.
 */
class TruncateAfterProperties {
    private static final int GROUPS = 3;

    sealed interface Action permits Append, Truncate, Compact, Purge, Reopen, Crash {
    }

    /** Appends {@code count} entries starting {@code back} entries before the end (0: right after it). */
    record Append(int group, int back, int count, int size) implements Action {
    }

    /** Keeps all but the last {@code drop} entries ({@code drop} past the count drops them all). */
    record Truncate(int group, int drop) implements Action {
    }

    record Compact(int group, int drop) implements Action {
    }

    record Purge() implements Action {
    }

    record Reopen() implements Action {
    }

    record Crash() implements Action {
    }

    @Provide
    Arbitrary<List<Action>> actions() {
        Arbitrary<Integer> group = Arbitraries.integers().between(1, GROUPS);
        Arbitrary<Action> append = Combinators.combine(group, Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(1, 6), Arbitraries.integers().between(0, 600)).as(Append::new);
        Arbitrary<Action> truncate = Combinators.combine(group, Arbitraries.integers().between(0, 12))
                .as(Truncate::new);
        Arbitrary<Action> compact = Combinators.combine(group, Arbitraries.integers().between(0, 8))
                .as(Compact::new);
        return Arbitraries.frequencyOf(Tuple.of(10, append), Tuple.of(4, truncate), Tuple.of(2, compact),
                Tuple.of(2, Arbitraries.just(new Purge())), Tuple.of(1, Arbitraries.just(new Reopen())),
                Tuple.of(1, Arbitraries.just(new Crash()))).list().ofMinSize(10).ofMaxSize(120);
    }

    private static RaftLogOptions options(MemFileSystem fs) {
        return RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(4 << 10).withPurgeThreshold(8 << 10)
                .withPurgeRewriteMaxEntries(20).withRewriteGarbageRatio(0.3);
    }

    @Property(tries = 200)
    void truncationsMatchTheModel(@ForAll("actions") List<Action> actions) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/props");
        Map<Long, TreeMap<Long, byte[]>> model = new HashMap<>();
        for (long g = 1; g <= GROUPS; g++) {
            model.put(g, new TreeMap<>());
        }
        long serial = 0;
        int purgesThatRewrote = 0;
        RaftLogEngine engine = RaftLogEngine.open(dir, options(fs));
        try {
            for (Action action : actions) {
                switch (action) {
                    case Append a -> {
                        TreeMap<Long, byte[]> log = model.get((long) a.group());
                        long next = log.isEmpty() ? 1 : log.lastKey() + 1;
                        long start = Math.max(log.isEmpty() ? 1 : log.firstKey(), next - a.back());
                        List<byte[]> entries = new ArrayList<>();
                        for (int i = 0; i < a.count(); i++) {
                            byte[] e = new byte[a.size() + 8];
                            long tag = ++serial;
                            for (int b = 0; b < 8; b++) {
                                e[b] = (byte) (tag >>> (8 * b));
                            }
                            entries.add(e);
                        }
                        engine.write(new LogBatch().addEntries(a.group(), start, entries), true);
                        log.tailMap(start, true).clear();
                        for (int i = 0; i < entries.size(); i++) {
                            log.put(start + i, entries.get(i));
                        }
                    }
                    case Truncate t -> {
                        TreeMap<Long, byte[]> log = model.get((long) t.group());
                        long last = log.isEmpty() ? 0 : log.lastKey();
                        long kept = Math.max(0, last - t.drop());
                        engine.write(new LogBatch().truncateAfter(t.group(), kept), true);
                        log.tailMap(kept, false).clear();
                    }
                    case Compact c -> {
                        TreeMap<Long, byte[]> log = model.get((long) c.group());
                        if (!log.isEmpty()) {
                            long to = log.firstKey() + c.drop();
                            engine.write(new LogBatch().compactTo(c.group(), to), true);
                            log.headMap(to, false).clear();
                        }
                    }
                    case Purge p -> {
                        long before = engine.stats().purgeRewrites();
                        for (long g : engine.purgeExpiredFiles()) {
                            TreeMap<Long, byte[]> log = model.get(g);
                            long to = log.lastKey() - 2;
                            engine.write(new LogBatch().compactTo(g, to), true);
                            log.headMap(to, false).clear();
                        }
                        purgesThatRewrote += engine.stats().purgeRewrites() > before ? 1 : 0;
                    }
                    case Reopen r -> {
                        engine.close();
                        engine = RaftLogEngine.open(dir, options(fs));
                    }
                    case Crash c -> {
                        fs.crash();
                        EngineChecks.closeCrashed(engine);
                        engine = RaftLogEngine.open(dir, options(fs));
                    }
                }
                check(engine, model);
            }
        } finally {
            engine.close();
        }
        Statistics.label("purges that rewrote entries").collect(Math.min(purgesThatRewrote, 3));
    }

    private static void check(RaftLogEngine engine, Map<Long, TreeMap<Long, byte[]>> model) throws IOException {
        for (Map.Entry<Long, TreeMap<Long, byte[]>> e : model.entrySet()) {
            long g = e.getKey();
            TreeMap<Long, byte[]> log = e.getValue();
            if (log.isEmpty()) {
                assertEquals(OptionalLong.empty(), engine.firstIndex(g), "group " + g);
                assertEquals(OptionalLong.empty(), engine.lastIndex(g), "group " + g);
                continue;
            }
            assertEquals(OptionalLong.of(log.firstKey()), engine.firstIndex(g), "group " + g);
            assertEquals(OptionalLong.of(log.lastKey()), engine.lastIndex(g), "group " + g);
            List<byte[]> read = engine.entries(g, log.firstKey(), log.lastKey() + 1, Long.MAX_VALUE);
            assertEquals(log.size(), read.size());
            int i = 0;
            for (byte[] expected : log.values()) {
                assertArrayEquals(expected, read.get(i++), "group " + g + " entry " + (log.firstKey() + i - 1));
            }
        }
    }
}
