package io.varve.server.replica;

import io.varve.base.LoopbackPorts;
import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.WriteBatch;
import io.varve.raftlog.RaftLogOptions;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A Raft group of one member, in this JVM, whose Raft log syncs a test can hold: while they are held, an entry
 * proposed is neither durable nor committed, so its proposer times out on a member that still leads, which is
 * how a write of unknown outcome comes about. Reads and read indexes still answer (they need no new entry).
 * The request timeout is short so such a write gives up soon; the other calls finish well within it.
 */
final class OneMemberGroup implements AutoCloseable {

    static final long REQUEST_TIMEOUT_MS = 2_000;
    private static final long WAIT_MILLIS = 30_000;

    final String address;
    final ReplicationProcess process;
    final ReplicatedDb replicated;
    private final HeldSyncs syncs;

    private OneMemberGroup(String address, ReplicationProcess process, ReplicatedDb replicated, HeldSyncs syncs) {
        this.address = address;
        this.process = process;
        this.replicated = replicated;
        this.syncs = syncs;
    }

    /** Opens the member and waits until it leads and has started its term's state machine. */
    static OneMemberGroup start(Path dir) throws IOException, TimeoutException {
        String address = "127.0.0.1:" + LoopbackPorts.next();
        HeldSyncs syncs = new HeldSyncs();
        ReplicationProcess process = ReplicationProcess.open(dir, address,
                RaftLogOptions.defaults().withFileSystem(syncs));
        ReplicatedDb replicated;
        try {
            replicated = ReplicatedDb.open(process, RaftReplica.GROUP, List.of(address),
                    ReplicatedDbOptions.defaults().withElectionTimeoutMs(300).withRequestTimeoutMs(REQUEST_TIMEOUT_MS));
        } catch (IOException | RuntimeException e) {
            process.close();
            throw e;
        }
        OneMemberGroup group = new OneMemberGroup(address, process, replicated, syncs);
        try {
            long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
            while (replicated.leaderTerm() <= 0) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the member did not lead within " + WAIT_MILLIS + " ms");
                }
                LockSupport.parkNanos(5_000_000);
            }
            return group;
        } catch (TimeoutException | RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** From now on every sync of the Raft log waits, so no entry proposed commits, until {@link #releaseLogSyncs}. */
    void holdLogSyncs() {
        syncs.gate = new CountDownLatch(1);
    }

    void releaseLogSyncs() {
        CountDownLatch gate = syncs.gate;
        syncs.gate = null;
        if (gate != null) {
            gate.countDown();
        }
    }

    /** The index of the newest entry in this member's log (appended, durable or not). */
    long lastLogIndex() {
        return replicated.status().lastLogIndex();
    }

    static WriteBatch put(String key, String value) {
        return new WriteBatch().put(bytes(key), bytes(value));
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        releaseLogSyncs();
        try {
            replicated.close();
        } finally {
            process.close();
        }
    }

    /** Forwards to the disk; while {@link #gate} is set, a sync waits for it to open. */
    private static final class HeldSyncs extends ForwardingFileSystem {
        volatile CountDownLatch gate;

        HeldSyncs() {
            super(DiskFileSystem.INSTANCE);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            return held(delegate.create(path));
        }

        @Override
        public WritableFile openForAppend(Path path) throws IOException {
            return held(delegate.openForAppend(path));
        }

        @Override
        public WritableFile openForOverwrite(Path path, long position) throws IOException {
            return held(delegate.openForOverwrite(path, position));
        }

        private WritableFile held(WritableFile file) {
            return new ForwardingWritableFile(file) {
                @Override
                public void sync() throws IOException {
                    CountDownLatch g = gate;
                    if (g != null) {
                        try {
                            g.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IOException(e);
                        }
                    }
                    super.sync();
                }
            };
        }
    }
}
