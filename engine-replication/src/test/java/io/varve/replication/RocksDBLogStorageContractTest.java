package io.varve.replication;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.rocksdb.RocksDB;

/**
 * The contract against SOFAJRaft's own RocksDBLogStorage, the reference: it shows the contract test describes
 * what jraft's default storage does. Needs rocksdbjni's native library (test scope only); where it cannot
 * load, every test is skipped with that reason rather than passed.
 */
class RocksDBLogStorageContractTest extends LogStorageContract {

    @BeforeAll
    static void rocksDbLoads() {
        String failure = null;
        try {
            RocksDB.loadLibrary();
        } catch (Throwable t) {
            failure = t.toString();
        }
        assumeTrue(failure == null, "rocksdbjni cannot load here: " + failure);
    }

    @Override
    LogStorage newStorage(Path dir) {
        return new RocksDBLogStorage(dir.resolve("rocksdb").toString(), new RaftOptions());
    }

    /** Its prefix truncation deletes in the background, and init replays whatever is still there. */
    @Override
    boolean mayReplayConfigurationBelowTheFirstIndex() {
        return true;
    }

    /** jraft 1.3.x deletes the configuration range after it has already shrunk the log, so it deletes nothing. */
    @Override
    boolean keepsStaleConfigurationAfterSuffixTruncation() {
        return true;
    }
}
