package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftMetaStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.RaftMetaStorage;
import io.varve.base.fs.MemFileSystem;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Model test of the storages over one shared engine: two logs and one meta storage, random appends (some
 * overwriting the tail, some configuration entries), prefix truncations (some past the last entry), suffix
 * truncations, resets, getEntry/getTerm, meta updates, purges of the engine (small files, so live entries are
 * rewritten), reopens of the whole engine, and crashes (every write is synced, so a crash may lose nothing).
 * After every step each log must equal its model, a list of entries with a first index; after a reopen or a
 * crash the configuration entries replayed into a fresh manager must be exactly the model's, in order.
 */
class SharedStorageModelProperties {
    private static final int LOGS = 2;

    sealed interface Action permits Append, TruncatePrefix, TruncateSuffix, Reset, SetMeta, Purge, Reopen, Crash {
    }

    /** Appends {@code count} entries from {@code back} entries before the end; every {@code conf}-th a conf. */
    record Append(int log, int back, int count, int conf) implements Action {
    }

    record TruncatePrefix(int log, int delta) implements Action {
    }

    record TruncateSuffix(int log, int drop) implements Action {
    }

    record Reset(int log, int delta) implements Action {
    }

    record SetMeta(long term, int peer) implements Action {
    }

    record Purge() implements Action {
    }

    record Reopen() implements Action {
    }

    /** A machine crash: unsynced data dropped, the dead storages closed; every write here was synced. */
    record Crash() implements Action {
    }

    /** One entry of a model log. */
    record Model(long term, EntryType type, String payload) {
    }

    /** A log as the contract defines it: entries {@code first, first + 1, ...}. */
    static final class ModelLog {
        long first = 1;
        final List<Model> entries = new ArrayList<>();

        long last() {
            return first + entries.size() - 1;
        }

        Model at(long index) {
            return index < first || index > last() ? null : entries.get((int) (index - first));
        }

        void truncateAfter(long index) {
            while (!entries.isEmpty() && last() > index) {
                entries.removeLast();
            }
        }

        List<Long> configurationIndexes() {
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i).type() == EntryType.ENTRY_TYPE_CONFIGURATION) {
                    out.add(first + i);
                }
            }
            return out;
        }
    }

    @Provide
    Arbitrary<List<Action>> actions() {
        Arbitrary<Integer> log = Arbitraries.integers().between(0, LOGS - 1);
        Arbitrary<Action> append = Combinators.combine(log, Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(1, 8), Arbitraries.integers().between(1, 6)).as(Append::new);
        Arbitrary<Action> prefix = Combinators.combine(log, Arbitraries.integers().between(-2, 14))
                .as(TruncatePrefix::new);
        Arbitrary<Action> suffix = Combinators.combine(log, Arbitraries.integers().between(0, 10))
                .as(TruncateSuffix::new);
        Arbitrary<Action> reset = Combinators.combine(log, Arbitraries.integers().between(-6, 6)).as(Reset::new);
        Arbitrary<Action> meta = Combinators.combine(Arbitraries.longs().between(0, 1000),
                Arbitraries.integers().between(0, 3)).as(SetMeta::new);
        return Arbitraries.frequencyOf(Tuple.of(12, append), Tuple.of(3, prefix), Tuple.of(3, suffix),
                Tuple.of(1, reset), Tuple.of(2, meta), Tuple.of(1, Arbitraries.just(new Purge())),
                Tuple.of(2, Arbitraries.just(new Reopen())), Tuple.of(1, Arbitraries.just(new Crash()))).list().ofMinSize(10).ofMaxSize(80);
    }

    private MemFileSystem fs;
    private final Path dir = Path.of("/shared");
    private SharedRaftLog shared;
    private final LogStorage[] logs = new LogStorage[LOGS];
    private final List<List<Long>> replayed = new ArrayList<>();
    private RaftMetaStorage meta;

    private void openAll() throws IOException {
        shared = SharedRaftLog.open(dir, RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(8 << 10)
                .withPurgeThreshold(16 << 10).withRewriteGarbageRatio(0.3));
        VarveRaftServiceFactory factory = shared.serviceFactory();
        replayed.clear();
        for (int i = 0; i < LOGS; i++) {
            logs[i] = factory.createLogStorage("node-" + i + "/log", new RaftOptions());
            Entries.RecordingConfigurationManager manager = new Entries.RecordingConfigurationManager();
            LogStorageOptions opts = new LogStorageOptions();
            opts.setConfigurationManager(manager);
            opts.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
            assertTrue(logs[i].init(opts));
            replayed.add(manager.indexes());
        }
        meta = factory.createRaftMetaStorage("node-0/meta", new RaftOptions());
        assertTrue(meta.init(new RaftMetaStorageOptions()));
    }

    private void closeAll() throws IOException {
        for (LogStorage log : logs) {
            log.shutdown();
        }
        meta.shutdown();
        shared.close();
    }

    /**
     * Closes what the crashed machine had open, before reopening: the crash retired every handle, so nothing
     * is written and the closes' complaints about it are the dead machine's.
     */
    private void closeCrashed() {
        try {
            closeAll();
        } catch (IOException | RuntimeException deadMachine) {
            // the crashed storage refuses the final syncs; the handles are released all the same
        }
    }

    @Property(tries = 150)
    void storagesMatchTheirModels(@ForAll("actions") List<Action> actions) throws IOException {
        ModelLog[] models = new ModelLog[LOGS];
        for (int i = 0; i < LOGS; i++) {
            models[i] = new ModelLog();
        }
        long term = 0;
        PeerId vote = PeerId.emptyPeer();
        long serial = 0;
        int passedLast = 0;
        fs = new MemFileSystem(); // a new log per try
        openAll();
        try {
            for (Action action : actions) {
                switch (action) {
                    case Append a -> {
                        ModelLog m = models[a.log()];
                        long start = Math.max(m.first, m.last() + 1 - a.back());
                        long entryTerm = ++serial;
                        List<LogEntry> entries = new ArrayList<>();
                        List<Model> expected = new ArrayList<>();
                        for (int i = 0; i < a.count(); i++) {
                            long index = start + i;
                            boolean conf = (index % a.conf()) == 0;
                            LogEntry e = conf ? Entries.configuration(index, entryTerm, 9000 + i)
                                    : Entries.data(index, entryTerm);
                            entries.add(e);
                            expected.add(new Model(entryTerm, e.getType(), conf ? null : Entries.payload(e)));
                        }
                        assertEquals(a.count(), logs[a.log()].appendEntries(entries));
                        m.truncateAfter(start - 1);
                        m.entries.addAll(expected);
                    }
                    case TruncatePrefix t -> {
                        ModelLog m = models[t.log()];
                        long keep = Math.max(1, m.first + t.delta());
                        assertTrue(logs[t.log()].truncatePrefix(keep));
                        if (keep > m.first) {
                            passedLast += keep > m.last() + 1 ? 1 : 0;
                            while (!m.entries.isEmpty() && m.first < keep) {
                                m.entries.removeFirst();
                                m.first++;
                            }
                            m.first = keep;
                        }
                    }
                    case TruncateSuffix t -> {
                        ModelLog m = models[t.log()];
                        long kept = Math.max(0, m.last() - t.drop());
                        assertTrue(logs[t.log()].truncateSuffix(kept));
                        m.truncateAfter(kept);
                    }
                    case Reset r -> {
                        ModelLog m = models[r.log()];
                        long next = Math.max(1, m.last() + r.delta());
                        assertTrue(logs[r.log()].reset(next));
                        Model kept = m.at(next);
                        m.entries.clear();
                        m.entries.add(kept != null ? kept : new Model(0, EntryType.ENTRY_TYPE_NO_OP, null));
                        m.first = next;
                    }
                    case SetMeta s -> {
                        PeerId peer = s.peer() == 0 ? PeerId.emptyPeer() : new PeerId("127.0.0.1", 7000 + s.peer());
                        assertTrue(meta.setTermAndVotedFor(s.term(), peer));
                        term = s.term();
                        vote = peer;
                    }
                    case Purge p -> shared.engine().purgeExpiredFiles();
                    case Reopen r -> {
                        closeAll();
                        openAll();
                        checkReplayedConfiguration(models);
                    }
                    case Crash c -> {
                        fs.crash();
                        closeCrashed();
                        openAll();
                        checkReplayedConfiguration(models);
                    }
                }
                for (int i = 0; i < LOGS; i++) {
                    check(logs[i], models[i], "log " + i);
                }
                assertEquals(term, meta.getTerm());
                assertEquals(vote, meta.getVotedFor());
            }
        } finally {
            closeAll();
        }
        Statistics.label("prefix truncations past the end").collect(Math.min(passedLast, 2));
    }

    private void checkReplayedConfiguration(ModelLog[] models) {
        for (int i = 0; i < LOGS; i++) {
            assertEquals(models[i].configurationIndexes(), replayed.get(i), "configuration of log " + i);
        }
    }

    private static void check(LogStorage log, ModelLog m, String what) {
        assertEquals(m.first, log.getFirstLogIndex(), what + " first");
        assertEquals(m.last(), log.getLastLogIndex(), what + " last");
        assertNull(log.getEntry(m.first - 1), what);
        assertNull(log.getEntry(m.last() + 1), what);
        for (long i = m.first; i <= m.last(); i++) {
            Model expected = m.at(i);
            LogEntry e = log.getEntry(i);
            assertNotNull(e, what + " entry " + i);
            assertEquals(i, e.getId().getIndex());
            assertEquals(expected.term(), e.getId().getTerm(), what + " term of " + i);
            assertEquals(expected.term(), log.getTerm(i));
            assertEquals(expected.type(), e.getType(), what + " type of " + i);
            if (expected.payload() != null) {
                assertEquals(expected.payload(), Entries.payload(e));
            }
        }
    }
}
