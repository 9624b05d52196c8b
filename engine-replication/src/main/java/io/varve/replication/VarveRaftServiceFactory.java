package io.varve.replication;

import com.alipay.sofa.jraft.core.DefaultJRaftServiceFactory;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.RaftMetaStorage;
import java.util.Objects;

/**
 * SOFAJRaft's storage SPI for Varve: the log and the Raft meta state (term, vote) of every node go to the
 * process's {@link SharedRaftLog}; snapshots stay with jraft's {@code LocalSnapshotStorage} and the entry codec
 * with jraft's default (V2). The node's log URI and meta URI name its groups in the shared engine, so they must
 * differ between the nodes of one process and stay the same across restarts.
 *
 * <p>Entries and meta updates are written synced when {@link RaftOptions#isSync()} (the default). The meta
 * state is synced then even though jraft's own {@code syncMeta} defaults to false: Raft's safety rests on a
 * vote surviving a crash, and here the sync joins the engine's group commit instead of writing a file of its
 * own. With {@code sync} off nothing is synced, as with jraft's RocksDB storage.
 */
public final class VarveRaftServiceFactory extends DefaultJRaftServiceFactory {
    private final SharedRaftLog log;

    public VarveRaftServiceFactory(SharedRaftLog log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public LogStorage createLogStorage(String uri, RaftOptions raftOptions) {
        return new SharedLogStorage(log, requireName(uri, "log"), raftOptions.isSync());
    }

    @Override
    public RaftMetaStorage createRaftMetaStorage(String uri, RaftOptions raftOptions) {
        return new SharedMetaStorage(log, requireName(uri, "raft meta"), raftOptions.isSync());
    }

    private static String requireName(String uri, String what) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("blank " + what + " uri");
        }
        return uri;
    }
}
