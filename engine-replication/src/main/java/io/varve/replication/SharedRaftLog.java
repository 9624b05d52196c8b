package io.varve.replication;

import io.varve.raftlog.LogBatch;
import io.varve.raftlog.RaftLogEngine;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one {@link RaftLogEngine} of a process that stores the logs and the Raft meta state of all its SOFAJRaft
 * nodes. Every group's appends go through the engine's group commit, so one fsync covers the appends of all
 * groups in flight at that moment; with RocksDBLogStorage each group has its own RocksDB and its own WAL.
 *
 * <p>Each storage is known by a name (the node's log or meta URI) that {@link GroupDirectory} maps to an
 * engine group. A name may be open in one storage at a time: two nodes writing one log would corrupt it.
 * Thread-safe.
 */
public final class SharedRaftLog implements AutoCloseable {
    private final RaftLogEngine engine;
    private final boolean ownsEngine;
    private final GroupDirectory directory;
    private final Set<String> openNames = ConcurrentHashMap.newKeySet();

    private SharedRaftLog(RaftLogEngine engine, boolean ownsEngine) {
        this.engine = engine;
        this.ownsEngine = ownsEngine;
        this.directory = new GroupDirectory(engine);
    }

    /** Opens the engine in {@code dir}; {@link #close()} closes it. */
    public static SharedRaftLog open(Path dir, RaftLogOptions options) throws IOException {
        return new SharedRaftLog(RaftLogEngine.open(dir, options), true);
    }

    /** Uses an engine the caller opened and will close (after every node using it has shut down). */
    public static SharedRaftLog over(RaftLogEngine engine) {
        return new SharedRaftLog(Objects.requireNonNull(engine, "engine"), false);
    }

    public RaftLogEngine engine() {
        return engine;
    }

    /** The service factory to give every node of this process ({@code NodeOptions.setServiceFactory}). */
    public VarveRaftServiceFactory serviceFactory() {
        return new VarveRaftServiceFactory(this);
    }

    /** Claims {@code name} for one open storage and returns its group. */
    long acquire(String name) throws IOException {
        if (!openNames.add(name)) {
            throw new IllegalStateException("the raft log " + name + " is already open in " + engine);
        }
        try {
            return directory.groupOf(name);
        } catch (IOException | RuntimeException e) {
            openNames.remove(name);
            throw e;
        }
    }

    /** The first index the engine holds for the log named {@code logUri}, if any (for tests and metrics). */
    OptionalLong firstLogIndex(String logUri) throws IOException {
        return engine.firstIndex(directory.groupOf("log:" + logUri));
    }

    void release(String name) {
        openNames.remove(name);
    }

    /**
     * Removes the entries and state of the storages named {@code names} (none of them open), in one synced
     * batch. A name keeps its group id, so a later storage of that name starts empty.
     */
    void drop(List<String> names) throws IOException {
        LogBatch batch = new LogBatch();
        for (String name : names) {
            if (openNames.contains(name)) {
                throw new IllegalStateException("the raft log " + name + " is open");
            }
            batch.clean(directory.groupOf(name));
        }
        engine.write(batch, true);
    }

    /** Closes the engine if this opened it. Nodes must be shut down first. */
    @Override
    public void close() throws IOException {
        if (ownsEngine) {
            engine.close();
        }
    }

    @Override
    public String toString() {
        return "SharedRaftLog[" + engine.directory() + "]";
    }
}
