package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftMetaStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.RaftMetaStorage;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many logs and meta storages in one engine: naming, isolation, concurrency, reopen and failures. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedRaftLogTest {
    private static final Path DIR = Path.of("/shared");

    private final MemFileSystem mem = new MemFileSystem();
    private final FaultInjectingFileSystem fs = new FaultInjectingFileSystem(mem);

    private SharedRaftLog open() throws IOException {
        return SharedRaftLog.open(DIR, RaftLogOptions.defaults().withFileSystem(fs));
    }

    private static LogStorage log(SharedRaftLog shared, String uri) {
        LogStorage storage = shared.serviceFactory().createLogStorage(uri, new RaftOptions());
        LogStorageOptions opts = new LogStorageOptions();
        opts.setConfigurationManager(new ConfigurationManager());
        opts.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
        assertTrue(storage.init(opts), uri);
        return storage;
    }

    private static RaftMetaStorage meta(SharedRaftLog shared, String uri) {
        RaftMetaStorage storage = shared.serviceFactory().createRaftMetaStorage(uri, new RaftOptions());
        assertTrue(storage.init(new RaftMetaStorageOptions()), uri);
        return storage;
    }

    @Test
    void groupsWrittenConcurrentlyStayApartAndSurviveAReopen() throws Exception {
        int groups = 8;
        int entries = 200;
        try (SharedRaftLog shared = open()) {
            List<LogStorage> logs = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                logs.add(log(shared, "group-" + g));
            }
            ExecutorService writers = Executors.newFixedThreadPool(groups);
            try {
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    LogStorage storage = logs.get(g);
                    long term = g + 1;
                    done.add(CompletableFuture.runAsync(() -> {
                        for (long i = 1; i <= entries; i += 4) {
                            assertEquals(4, storage.appendEntries(Entries.data(i, i + 3, term)));
                        }
                    }, writers));
                }
                CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            } finally {
                writers.shutdownNow();
            }
            Set<Long> engineGroups = new HashSet<>();
            for (LogStorage storage : logs) {
                engineGroups.add(((SharedLogStorage) storage).group());
                storage.shutdown();
            }
            assertEquals(groups, engineGroups.size(), "one engine group per log");
            assertTrue(shared.engine().groups().containsAll(engineGroups));
        }
        try (SharedRaftLog shared = open()) {
            for (int g = 0; g < groups; g++) {
                LogStorage storage = log(shared, "group-" + g);
                assertEquals(entries, storage.getLastLogIndex());
                for (long i = 1; i <= entries; i++) {
                    assertEquals("entry " + i + " of term " + (g + 1), Entries.payload(storage.getEntry(i)));
                }
                storage.shutdown();
            }
        }
    }

    @Test
    void aNameKeepsItsGroupAndANewNameNeverReusesOne() throws Exception {
        long a;
        long b;
        try (SharedRaftLog shared = open()) {
            LogStorage first = log(shared, "a");
            LogStorage second = log(shared, "b");
            a = ((SharedLogStorage) first).group();
            b = ((SharedLogStorage) second).group();
            assertNotEquals(a, b);
            assertNotEquals(GroupDirectory.DIRECTORY_GROUP, a);
            first.shutdown();
            second.shutdown();
        }
        fs.heal();
        mem.crash(); // the assignments were synced: a crash keeps them
        try (SharedRaftLog shared = open()) {
            LogStorage third = log(shared, "c");
            LogStorage again = log(shared, "b");
            assertEquals(b, ((SharedLogStorage) again).group());
            long c = ((SharedLogStorage) third).group();
            assertNotEquals(a, c);
            assertNotEquals(b, c);
            third.shutdown();
            again.shutdown();
        }
    }

    @Test
    void aNameIsOpenInOneStorageAtATime() throws Exception {
        try (SharedRaftLog shared = open()) {
            LogStorage first = log(shared, "node/log");
            LogStorage second = shared.serviceFactory().createLogStorage("node/log", new RaftOptions());
            LogStorageOptions opts = new LogStorageOptions();
            opts.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
            assertFalse(second.init(opts));
            first.shutdown();
            assertTrue(second.init(opts));
            // A meta storage with the same uri is a different name.
            RaftMetaStorage meta = meta(shared, "node/log");
            meta.shutdown();
            second.shutdown();
        }
    }

    @Test
    void metaStateStartsEmptyAndPersists() throws Exception {
        PeerId peer = new PeerId("127.0.0.1", 8101);
        try (SharedRaftLog shared = open()) {
            RaftMetaStorage meta = meta(shared, "n/meta");
            assertEquals(0, meta.getTerm());
            assertTrue(meta.getVotedFor().isEmpty());
            assertTrue(meta.setTermAndVotedFor(7, peer));
            assertTrue(meta.setTerm(8));
            meta.shutdown();
        }
        mem.crash();
        try (SharedRaftLog shared = open()) {
            RaftMetaStorage meta = meta(shared, "n/meta");
            assertEquals(8, meta.getTerm());
            assertEquals(peer, meta.getVotedFor());
            assertTrue(meta.setVotedFor(PeerId.emptyPeer()));
            meta.shutdown();
        }
        try (SharedRaftLog shared = open()) {
            RaftMetaStorage meta = meta(shared, "n/meta");
            assertTrue(meta.getVotedFor().isEmpty());
            assertEquals(8, meta.getTerm());
            meta.shutdown();
        }
    }

    @Test
    void afterAnIoErrorWritesReportFailureAndNothingChanges() throws Exception {
        try (SharedRaftLog shared = open()) {
            LogStorage storage = log(shared, "failing");
            RaftMetaStorage meta = meta(shared, "failing-meta");
            assertEquals(5, storage.appendEntries(Entries.data(1, 5, 1)));
            assertTrue(meta.setTerm(3));
            fs.failAt(1, true);
            assertEquals(0, storage.appendEntries(Entries.data(6, 7, 1)));
            assertFalse(storage.truncateSuffix(2));
            assertFalse(storage.truncatePrefix(3));
            assertFalse(storage.reset(4));
            assertFalse(meta.setTerm(4));
            assertEquals(1, storage.getFirstLogIndex());
            assertEquals(5, storage.getLastLogIndex());
            assertEquals(3, meta.getTerm());
            storage.shutdown();
            meta.shutdown();
            fs.heal();
        } catch (IOException closeAfterFailure) {
            // The failed engine may refuse its final sync on close; the state is checked after a crash below.
        }
        mem.crash();
        try (SharedRaftLog shared = open()) {
            LogStorage storage = log(shared, "failing");
            assertEquals(5, storage.getLastLogIndex());
            assertEquals(3, meta(shared, "failing-meta").getTerm());
        }
    }
}
