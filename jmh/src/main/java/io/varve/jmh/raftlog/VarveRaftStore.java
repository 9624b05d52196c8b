package io.varve.jmh.raftlog;

import io.varve.raftlog.EngineStats;
import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import io.varve.jmh.store.StoreSettings;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Varve's engine-raftlog. */
final class VarveRaftStore implements RaftStore {
    static final byte[] HARD_STATE_KEY = {'h', 's'};

    final RaftLogEngine engine;
    /** A LogBatch is filled by one thread; writers run on several. */
    private final ThreadLocal<LogBatch> batches = ThreadLocal.withInitial(LogBatch::new);

    VarveRaftStore(Path dir) throws IOException {
        this(dir, StoreSettings.raftLogVarve());
    }

    VarveRaftStore(Path dir, RaftLogOptions options) throws IOException {
        this.engine = RaftLogEngine.open(dir, options);
    }

    @Override
    public void append(long[] groups, long[] indexes, byte[][] entries, byte[] hardState, boolean sync)
            throws IOException {
        LogBatch batch = batches.get().clear();
        for (int i = 0; i < groups.length; i++) {
            batch.addEntries(groups[i], indexes[i], List.of(entries[i]));
            batch.put(groups[i], HARD_STATE_KEY, hardState);
        }
        engine.write(batch, sync);
    }

    @Override
    public void compact(long group, long index) throws IOException {
        engine.compactTo(group, index);
    }

    @Override
    public void maintain(long[] lastIndexes, int keep) throws IOException {
        for (long group : engine.purgeExpiredFiles()) {
            engine.compactTo(group, Math.max(0, lastIndexes[(int) group] - keep));
        }
    }

    @Override
    public long deviceBytesWritten() {
        EngineStats s = engine.stats();
        return s.appendBytesWritten() + s.rewriteBytesWritten();
    }

    @Override
    public String details() {
        EngineStats s = engine.stats();
        return String.format("; %d fdatasyncs for %d batches; %d files written over purged ones", s.dataSyncs(),
                s.batchesWritten(), s.filesRecycled());
    }

    @Override
    public String accounting() {
        return "EngineStats.appendBytesWritten + rewriteBytesWritten (every byte handed to the file system)";
    }

    @Override
    public void close() throws IOException {
        engine.close();
    }
}
