package io.varve.replication.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;

/**
 * The benchmark's counters count: a synced append from one writer at a time cannot share its sync, so after
 * {@code n} of them each store reports at least {@code n} fsyncs and {@code n} payloads written. A store whose
 * counters were not wired (jraft renaming the field read by reflection, say) reports 0 and fails here instead
 * of printing a flattering figure.
 */
class BenchmarkStoresTest {
    private static final int GROUPS = 2;
    private static final int APPENDS = 10;
    private static final int ENTRY_BYTES = 512;

    @TempDir
    Path dir;

    @Test
    void varveCountsEverySyncedAppend() throws Exception {
        try (VarveStore store = new VarveStore(dir)) {
            appendAndCheck(store);
        }
    }

    @Test
    void rocksDbCountsEverySyncedAppend() throws Exception {
        String failure = null;
        try {
            RocksDB.loadLibrary();
        } catch (Throwable t) {
            failure = t.toString();
        }
        assumeTrue(failure == null, "rocksdbjni cannot load here: " + failure);
        try (RocksStore store = new RocksStore(dir)) {
            appendAndCheck(store);
        }
    }

    private static void appendAndCheck(LogStorageBenchmark.Store store) throws Exception {
        List<LogStorage> storages = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            LogStorage storage = store.create(g);
            LogStorageOptions options = new LogStorageOptions();
            options.setConfigurationManager(new ConfigurationManager());
            options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
            options.setGroupId("test-" + g);
            assertTrue(storage.init(options));
            storages.add(storage);
        }
        long fsyncsBefore = store.fsyncs();
        long bytesBefore = store.bytesWritten();
        for (int i = 1; i <= APPENDS; i++) {
            for (LogStorage storage : storages) {
                LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
                entry.setId(new LogId(i, 1));
                entry.setData(ByteBuffer.wrap(new byte[ENTRY_BYTES]));
                assertEquals(1, storage.appendEntries(List.of(entry)));
            }
        }
        int commits = GROUPS * APPENDS;
        assertTrue(store.fsyncs() - fsyncsBefore >= commits,
                "fsyncs " + (store.fsyncs() - fsyncsBefore) + " for " + commits + " synced appends");
        assertTrue(store.bytesWritten() - bytesBefore >= (long) commits * ENTRY_BYTES,
                "bytes " + (store.bytesWritten() - bytesBefore));
        for (LogStorage storage : storages) {
            storage.shutdown();
        }
    }
}
