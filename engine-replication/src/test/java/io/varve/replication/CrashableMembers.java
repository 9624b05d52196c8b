package io.varve.replication;

import io.varve.core.Options;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Members of a {@link TestCluster} that can be killed as a machine dies: each member's shared Raft log and
 * database live on its own {@link CrashableFileSystem}, so {@link #crash} keeps only what was synced and lets
 * nothing the dying member does afterwards (its shutdown, a flush on close) reach storage. A clean
 * {@code close()} would instead flush the database and sync the log, hiding whatever depends on them.
 * {@link #open} restarts a crashed member on what its machine kept.
 */
final class CrashableMembers implements AutoCloseable {

    private static final class Machine {
        final CrashableFileSystem fs;
        ReplicationProcess process;

        Machine(Path snapshotDir) {
            fs = new CrashableFileSystem(snapshotDir);
        }
    }

    private final Map<String, Machine> machines = new ConcurrentHashMap<>();

    /** A {@link TestCluster.Opener}: opens (or, after a crash, powers on again) the member's machine. */
    ReplicatedDb open(String address, List<String> peers, Path dataDir) throws IOException {
        Machine machine = machines.computeIfAbsent(address,
                a -> new Machine(dataDir.resolve("groups").resolve(TestCluster.GROUP).resolve("snapshot")));
        machine.fs.restart();
        if (machine.process == null) {
            machine.process = ReplicationProcess.open(dataDir, address,
                    RaftLogOptions.defaults().withFileSystem(machine.fs).withTargetFileSize(1 << 20));
        }
        ReplicatedDbOptions options = TestCluster.fastOptions()
                .withDbOptions(Options.defaults().withFileSystem(machine.fs));
        return ReplicatedDb.open(machine.process, TestCluster.GROUP, peers, options);
    }

    /**
     * Crashes the member's machine, then shuts down its node and process (freeing the port). The storage is
     * frozen at the crash, so the closes write nothing; their complaints about it are the dead machine's.
     */
    void crash(TestCluster cluster, String address) {
        Machine machine = machines.get(address);
        machine.fs.crash();
        try {
            cluster.stop(address);
        } catch (IOException | RuntimeException expected) {
            // The frozen storage refused the close; the node is stopped and the group released all the same.
        }
        try {
            machine.process.close();
        } catch (IOException | UncheckedIOException expected) {
            // Likewise for the shared log; the RPC server stopped before it.
        }
        machine.process = null;
    }

    /** Closes the processes of the members still running (close the cluster first). */
    @Override
    public void close() throws IOException {
        List<ReplicationProcess> processes = new ArrayList<>();
        for (Machine machine : machines.values()) {
            if (machine.process != null) {
                processes.add(machine.process);
            }
        }
        TestCluster.closeAll(processes);
    }
}
