package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SOFAJRaft's {@link LogStorage} contract as jraft's LogManager relies on it, written from that contract:
 * an empty log has first 1 and last 0; {@code appendEntries} returns how many it appended; {@code
 * truncatePrefix} may pass the last entry; {@code truncateSuffix} drops entries and the configuration entries
 * among them; {@code reset(next)} leaves first = last = next; {@code init} replays every stored configuration
 * entry, in order; one thread writes while any thread reads. Every durable effect is checked again after a
 * reopen. Subclasses supply the storage.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LogStorageContract {
    @TempDir
    Path dir;

    private LogStorage storage;
    Entries.RecordingConfigurationManager configurations;

    /** A new storage object for the log kept in {@code dir} (not yet initialized). */
    abstract LogStorage newStorage(Path dir) throws Exception;

    /** Called after the storage shut down, before the next {@link #newStorage}: close what backs it. */
    void afterShutdown() throws Exception {
    }

    /** The reference may have known deviations; each test that meets one says so with an assumption. */
    boolean keepsStaleConfigurationAfterSuffixTruncation() {
        return false;
    }

    /** Whether {@code init} may also replay configuration entries below the first index (harmless). */
    boolean mayReplayConfigurationBelowTheFirstIndex() {
        return false;
    }

    @BeforeEach
    void openStorage() throws Exception {
        storage = open();
    }

    @AfterEach
    void closeStorage() throws Exception {
        if (storage != null) {
            storage.shutdown();
            afterShutdown();
        }
    }

    private LogStorage open() throws Exception {
        LogStorage s = newStorage(dir);
        configurations = new Entries.RecordingConfigurationManager();
        LogStorageOptions opts = new LogStorageOptions();
        opts.setConfigurationManager(configurations);
        opts.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
        opts.setGroupId("contract");
        assertTrue(s.init(opts), "init");
        return s;
    }

    private void reopen() throws Exception {
        storage.shutdown();
        afterShutdown();
        storage = null;
        storage = open();
    }

    private void assertEntry(long index, long term, String payload) {
        LogEntry e = storage.getEntry(index);
        assertNotNull(e, "entry " + index);
        assertEquals(index, e.getId().getIndex());
        assertEquals(term, e.getId().getTerm());
        assertEquals(payload, Entries.payload(e));
    }

    private void assertEntries(long from, long to, long term) {
        for (long i = from; i <= to; i++) {
            assertEntry(i, term, "entry " + i + " of term " + term);
        }
    }

    @Test
    void anEmptyLogHasFirstOneAndLastZero() throws Exception {
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        assertNull(storage.getEntry(1));
        assertEquals(0, storage.getTerm(1));
        reopen();
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(0, storage.getLastLogIndex());
        assertTrue(configurations.added.isEmpty());
    }

    @Test
    void appendedEntriesReadBackAndSurviveAReopen() throws Exception {
        assertEquals(10, storage.appendEntries(Entries.data(1, 10, 1)));
        assertTrue(storage.appendEntry(Entries.data(11, 2)));
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(11, storage.getLastLogIndex());
        assertEntries(1, 10, 1);
        assertEquals(2, storage.getTerm(11));
        assertNull(storage.getEntry(12));
        reopen();
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(11, storage.getLastLogIndex());
        assertEntries(1, 10, 1);
        assertEntry(11, 2, "entry 11 of term 2");
    }

    @Test
    void anEmptyAppendAppendsNothing() {
        assertEquals(0, storage.appendEntries(List.of()));
        assertEquals(0, storage.getLastLogIndex());
    }

    @Test
    void truncatePrefixDropsTheEntriesBelow() throws Exception {
        storage.appendEntries(Entries.data(1, 10, 1));
        assertTrue(storage.truncatePrefix(4));
        assertEquals(4, storage.getFirstLogIndex());
        assertEquals(10, storage.getLastLogIndex());
        assertNull(storage.getEntry(3));
        assertEntries(4, 10, 1);
        reopen();
        assertEquals(4, storage.getFirstLogIndex());
        assertEquals(10, storage.getLastLogIndex());
        assertNull(storage.getEntry(1));
        assertEntries(4, 10, 1);
    }

    @Test
    void truncatePrefixMayPassTheLastEntry() throws Exception {
        storage.appendEntries(Entries.data(1, 5, 1));
        // After a snapshot install the log restarts past everything it had.
        assertTrue(storage.truncatePrefix(9));
        assertEquals(9, storage.getFirstLogIndex());
        assertTrue(storage.getLastLogIndex() < 9, "empty: last below first");
        assertNull(storage.getEntry(5));
        reopen();
        assertEquals(9, storage.getFirstLogIndex());
        assertTrue(storage.getLastLogIndex() < 9, "empty after reopen");
        assertEquals(2, storage.appendEntries(Entries.data(9, 10, 3)));
        assertEquals(9, storage.getFirstLogIndex());
        assertEquals(10, storage.getLastLogIndex());
        assertEntries(9, 10, 3);
        reopen();
        assertEntries(9, 10, 3);
    }

    @Test
    void truncateSuffixDropsTheEntriesAfterAndLetsTheLogContinueThere() throws Exception {
        storage.appendEntries(Entries.data(1, 10, 1));
        assertTrue(storage.truncateSuffix(6));
        assertEquals(6, storage.getLastLogIndex());
        assertNull(storage.getEntry(7));
        assertEquals(2, storage.appendEntries(Entries.data(7, 8, 2)));
        assertEquals(8, storage.getLastLogIndex());
        reopen();
        assertEquals(1, storage.getFirstLogIndex());
        assertEquals(8, storage.getLastLogIndex());
        assertEntries(1, 6, 1);
        assertEntries(7, 8, 2);
        assertNull(storage.getEntry(9));
    }

    @Test
    void initReplaysEveryStoredConfigurationEntryInOrder() throws Exception {
        List<LogEntry> log = new ArrayList<>();
        for (long i = 1; i <= 9; i++) {
            log.add(i == 2 || i == 5 || i == 8 ? Entries.configuration(i, 1, 9000 + (int) i) : Entries.data(i, 1));
        }
        storage.appendEntries(log.subList(0, 4));
        storage.appendEntries(log.subList(4, 9));
        assertEquals(EntryType.ENTRY_TYPE_CONFIGURATION, storage.getEntry(5).getType());
        reopen();
        assertEquals(List.of(2L, 5L, 8L), configurations.indexes());
        assertTrue(configurations.added.get(1).getConf().contains(new PeerId("127.0.0.1", 9005)));
    }

    @Test
    void truncateSuffixAlsoDropsTheConfigurationEntriesItRemoves() throws Exception {
        assumeFalse(keepsStaleConfigurationAfterSuffixTruncation(),
                "the reference keeps configuration entries that a suffix truncation removed from its log");
        storage.appendEntries(List.of(Entries.data(1, 1), Entries.configuration(2, 1, 9002), Entries.data(3, 1),
                Entries.configuration(4, 1, 9004), Entries.data(5, 1)));
        assertTrue(storage.truncateSuffix(3));
        reopen();
        assertEquals(List.of(2L), configurations.indexes());
        // A new configuration entry at the truncated index is the one that counts.
        storage.appendEntries(List.of(Entries.configuration(4, 2, 9104)));
        reopen();
        assertEquals(List.of(2L, 4L), configurations.indexes());
        assertTrue(configurations.added.get(1).getConf().contains(new PeerId("127.0.0.1", 9104)));
    }

    @Test
    void truncatePrefixDropsTheConfigurationEntriesBelow() throws Exception {
        storage.appendEntries(List.of(Entries.data(1, 1), Entries.configuration(2, 1, 9002), Entries.data(3, 1),
                Entries.data(4, 1), Entries.configuration(5, 1, 9005), Entries.data(6, 1)));
        assertTrue(storage.truncatePrefix(4));
        reopen();
        List<Long> replayed = configurations.indexes();
        if (mayReplayConfigurationBelowTheFirstIndex()) {
            replayed = replayed.stream().filter(i -> i >= 4).toList();
        }
        assertEquals(List.of(5L), replayed);
    }

    @Test
    void resetKeepsTheEntryAtTheNextIndexAsTheOnlyOne() throws Exception {
        storage.appendEntries(Entries.data(1, 10, 1));
        assertTrue(storage.reset(5));
        assertEquals(5, storage.getFirstLogIndex());
        assertEquals(5, storage.getLastLogIndex());
        assertEntry(5, 1, "entry 5 of term 1");
        assertNull(storage.getEntry(4));
        assertNull(storage.getEntry(6));
        reopen();
        assertEquals(5, storage.getFirstLogIndex());
        assertEquals(5, storage.getLastLogIndex());
        assertEntry(5, 1, "entry 5 of term 1");
    }

    @Test
    void resetPastTheLogPlacesANoOpOfTermZeroThatTheNextAppendOverwrites() throws Exception {
        storage.appendEntries(List.of(Entries.data(1, 1), Entries.configuration(2, 1, 9002)));
        assertTrue(storage.reset(20));
        assertEquals(20, storage.getFirstLogIndex());
        assertEquals(20, storage.getLastLogIndex());
        LogEntry placeholder = storage.getEntry(20);
        assertEquals(EntryType.ENTRY_TYPE_NO_OP, placeholder.getType());
        assertEquals(0, placeholder.getId().getTerm());
        reopen();
        assertTrue(configurations.indexes().isEmpty(), "configuration entries dropped by the reset");
        assertEquals(20, storage.getLastLogIndex());
        assertEquals(2, storage.appendEntries(Entries.data(20, 21, 4)));
        reopen();
        assertEquals(20, storage.getFirstLogIndex());
        assertEquals(21, storage.getLastLogIndex());
        assertEntries(20, 21, 4);
    }

    @Test
    void resetRejectsANonPositiveIndex() {
        assertThrows(IllegalArgumentException.class, () -> storage.reset(0));
    }

    @Test
    void readersOnOtherThreadsSeeEveryAppendedEntryIntact() throws Exception {
        int total = 3000;
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService readers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> checks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                checks.add(readers.submit(() -> {
                    int seen = 0;
                    // Reads until the writer is done, then once more over the whole log.
                    while (true) {
                        boolean last = done.get();
                        long upTo = storage.getLastLogIndex();
                        for (long i = Math.max(1, upTo - 20); i <= upTo; i++) {
                            LogEntry e = storage.getEntry(i);
                            assertNotNull(e, "entry " + i + " of last " + upTo);
                            assertEquals("entry " + i + " of term 1", Entries.payload(e));
                            seen++;
                        }
                        if (last) {
                            return seen;
                        }
                    }
                }));
            }
            for (long i = 1; i <= total; i += 10) {
                assertEquals(10, storage.appendEntries(Entries.data(i, i + 9, 1)));
            }
            done.set(true);
            for (Future<Integer> check : checks) {
                assertTrue(check.get(30, TimeUnit.SECONDS) > 0);
            }
        } finally {
            readers.shutdownNow();
        }
        assertEquals(total, storage.getLastLogIndex());
    }
}
