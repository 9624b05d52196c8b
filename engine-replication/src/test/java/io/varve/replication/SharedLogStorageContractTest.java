package io.varve.replication;

import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.varve.raftlog.RaftLogOptions;
import java.nio.file.Path;

/** The contract against Varve's storage: a node's log as one group of a shared engine, reopened each time. */
class SharedLogStorageContractTest extends LogStorageContract {
    private SharedRaftLog shared;

    @Override
    LogStorage newStorage(Path dir) throws Exception {
        shared = SharedRaftLog.open(dir.resolve("raftlog"), RaftLogOptions.defaults());
        return shared.serviceFactory().createLogStorage("contract-log", new RaftOptions());
    }

    @Override
    void afterShutdown() throws Exception {
        shared.close();
    }
}
