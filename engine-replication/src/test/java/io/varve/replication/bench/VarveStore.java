package io.varve.replication.bench;

import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import io.varve.raftlog.EngineStats;
import io.varve.raftlog.RaftLogOptions;
import io.varve.replication.SharedRaftLog;
import io.varve.replication.VarveRaftServiceFactory;
import java.io.IOException;
import java.nio.file.Path;

/** Every group's log in one shared engine-raftlog, created the way a replicated Varve process creates them. */
final class VarveStore implements LogStorageBenchmark.Store {
    private final SharedRaftLog log;
    private final VarveRaftServiceFactory factory;
    private final RaftOptions raftOptions = new RaftOptions();

    VarveStore(Path dir) throws IOException {
        log = SharedRaftLog.open(dir.resolve("raftlog"), RaftLogOptions.defaults());
        factory = log.serviceFactory();
    }

    @Override
    public LogStorage create(int group) {
        return factory.createLogStorage("bench-" + group, raftOptions);
    }

    @Override
    public long fsyncs() {
        return log.engine().stats().dataSyncs();
    }

    /** Every byte the engine handed to the file system: appends and purge rewrites. */
    @Override
    public long bytesWritten() {
        EngineStats stats = log.engine().stats();
        return stats.appendBytesWritten() + stats.rewriteBytesWritten();
    }

    @Override
    public void close() throws IOException {
        log.close();
    }
}
