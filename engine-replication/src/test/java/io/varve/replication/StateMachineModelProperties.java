package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.Db;
import io.varve.core.Options;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * The state machine without Raft, against a map model: random commands applied in rounds of random size,
 * clean restarts and crashes that keep a random part of the database's unsynced log. After a crash the
 * database must hold exactly the model's state at its stored applied index, and replaying the log from the
 * start (as jraft does without a snapshot) must skip exactly the entries at or below it and end at the model.
 */
class StateMachineModelProperties {
    private static final Path DIR = Path.of("/state-machine");
    private static final String[] FAMILIES = {ReplicatedBatch.DEFAULT_FAMILY, "a", "b"};

    /** A jraft iterator over entries {@code first..} of a list, recording each entry's acknowledgement. */
    static final class ListIterator implements Iterator {
        private final List<byte[]> entries;
        private final List<Status> acks;
        private int position;
        Status error;

        ListIterator(List<byte[]> entries, int from, List<Status> acks) {
            this.entries = entries;
            this.position = from;
            this.acks = acks;
        }

        @Override
        public boolean hasNext() {
            return error == null && position < entries.size();
        }

        @Override
        public ByteBuffer next() {
            position++;
            return hasNext() ? getData() : null;
        }

        @Override
        public ByteBuffer getData() {
            return ByteBuffer.wrap(entries.get(position));
        }

        @Override
        public long getIndex() {
            return position + 1L;
        }

        @Override
        public long getTerm() {
            return 1;
        }

        @Override
        public Closure done() {
            return acks::add;
        }

        @Override
        public boolean commit() {
            return false;
        }

        @Override
        public void commitAndSnapshotSync(Closure done) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setAutoCommitPerLog(boolean status) {
        }

        @Override
        public void setErrorAndRollback(long ntail, Status st) {
            error = st;
        }
    }

    private static ReplicatedBatch randomBatch(Random random, Map<String, TreeMap<String, String>> model) {
        ReplicatedBatch batch = new ReplicatedBatch();
        int ops = 1 + random.nextInt(4);
        for (int i = 0; i < ops; i++) {
            String family = FAMILIES[random.nextInt(FAMILIES.length)];
            String key = "k" + random.nextInt(6);
            TreeMap<String, String> entries = model.computeIfAbsent(family, f -> new TreeMap<>());
            if (random.nextInt(4) == 0) {
                batch.delete(family, key.getBytes());
                entries.remove(hex(key));
            } else {
                String value = "v" + random.nextInt(1000);
                batch.put(family, key.getBytes(), value.getBytes());
                entries.put(hex(key), hex(value));
            }
        }
        return batch;
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes());
    }

    private static Map<String, Map<String, String>> copy(Map<String, TreeMap<String, String>> model) {
        Map<String, Map<String, String>> copy = new TreeMap<>();
        model.forEach((family, entries) -> {
            if (!entries.isEmpty()) {
                copy.put(family, new TreeMap<>(entries));
            }
        });
        return copy;
    }

    /**
     * Where a crash can fall, as seen from the state machine: before anything was applied, with every applied
     * entry already in a table or synced (nothing to replay), or with applied entries lost from the unsynced
     * log (replayed from jraft's log). The tries must reach each. A crash before the first apply is rare at
     * random (one try in four), so {@code crashFirst} starts half the tries with an entry logged and a crash;
     * 12 tries then crash about 45 times, the rarest point about 8 of them. A try reopens the database about
     * six times, so tries are what the property's run time is made of.
     */
    enum CrashPoint { NOTHING_APPLIED, NOTHING_LOST, APPLIED_ENTRIES_LOST }

    @Property(tries = 12)
    void appliesLikeAMapAcrossRestartsAndCrashes(@ForAll long seed, @ForAll boolean crashFirst) throws IOException {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
        List<byte[]> log = new ArrayList<>();
        // The model's state after each applied entry: states.get(i) is the state after entries 1..i.
        List<Map<String, Map<String, String>>> states = new ArrayList<>();
        states.add(Map.of());
        Map<String, TreeMap<String, String>> model = new TreeMap<>();
        int applied = 0;
        Db db = Db.open(DIR, options);
        DbStateMachine fsm = new DbStateMachine(db, "model");
        try {
            for (int step = 0; step < 40; step++) {
                int action = crashFirst && step < 2 ? (step == 0 ? 0 : 19) : random.nextInt(20);
                if (action < 12) {
                    log.add(CommandCodec.encode(randomBatch(random, model)));
                    states.add(copy(model));
                } else if (action < 17) {
                    List<Status> acks = new ArrayList<>();
                    fsm.onApply(new ListIterator(log, applied, acks));
                    assertEquals(log.size() - applied, acks.size());
                    assertTrue(acks.stream().allMatch(Status::isOk));
                    applied = log.size();
                    assertEquals(applied, fsm.appliedIndex());
                    assertEquals(states.get(applied), TestCluster.scan(db));
                } else {
                    boolean crash = action >= 18;
                    if (crash) {
                        fs.crash(random);
                    }
                    try {
                        db.close();
                    } catch (RuntimeException deadAfterCrash) {
                        // the crashed instance's handles are gone; the new instance is what matters
                    }
                    db = Db.open(DIR, options);
                    fsm = new DbStateMachine(db, "model");
                    long kept = fsm.appliedIndex();
                    if (crash) {
                        assertTrue(kept <= applied, "applied index " + kept + " after applying " + applied);
                        Statistics.label("crash points").collect(applied == 0 ? CrashPoint.NOTHING_APPLIED
                                : kept == applied ? CrashPoint.NOTHING_LOST : CrashPoint.APPLIED_ENTRIES_LOST);
                    } else {
                        assertEquals(applied, kept, "a clean close keeps every applied entry");
                    }
                    assertEquals(states.get((int) kept), TestCluster.scan(db), "state at applied index " + kept);
                    // jraft replays every committed entry after its snapshot (none here): from the first.
                    List<Status> acks = new ArrayList<>();
                    fsm.onApply(new ListIterator(log.subList(0, applied), 0, acks));
                    assertEquals(kept, fsm.entriesSkipped());
                    assertEquals(applied - kept, fsm.entriesApplied());
                    assertEquals(states.get(applied), TestCluster.scan(db));
                }
            }
        } finally {
            db.close();
        }
        Statistics.label("crash points").coverage(coverage -> {
            for (CrashPoint point : CrashPoint.values()) {
                coverage.check(point).count(n -> n >= 1);
            }
        });
    }

    @Property(tries = 5)
    void anEntryThatIsNotACommandStopsTheRoundAfterTheEntriesBeforeIt(@ForAll long seed) throws IOException {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            DbStateMachine fsm = new DbStateMachine(db, "model");
            Map<String, TreeMap<String, String>> model = new TreeMap<>();
            List<byte[]> log = new ArrayList<>();
            int good = random.nextInt(5);
            for (int i = 0; i < good; i++) {
                log.add(CommandCodec.encode(randomBatch(random, model)));
            }
            Map<String, Map<String, String>> expected = copy(model);
            log.add(new byte[] {9, 9, 9});
            log.add(CommandCodec.encode(randomBatch(random, model)));
            List<Status> acks = new ArrayList<>();
            ListIterator iterator = new ListIterator(log, 0, acks);
            fsm.onApply(iterator);
            assertTrue(iterator.error != null, "the node is stopped");
            assertEquals(good, acks.size());
            assertEquals(good, fsm.appliedIndex());
            assertEquals(expected, TestCluster.scan(db));
        }
    }
}
