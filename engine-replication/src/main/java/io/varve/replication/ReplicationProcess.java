package io.varve.replication;

import com.alipay.remoting.config.BoltServerOption;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.util.Endpoint;
import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import io.varve.core.Db;
import io.varve.raftlog.EngineStats;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What every {@link ReplicatedDb} group of one process shares: the address its Raft peers reach it at (one RPC
 * server for all groups; jraft routes each request by group id), the {@link SharedRaftLog} holding every
 * group's log and vote, and the data directory.
 *
 * <pre>
 *   dataDir/raftlog/                   the shared Raft log engine
 *   dataDir/groups/&lt;group&gt;/db/         the group's engine-core database
 *   dataDir/groups/&lt;group&gt;/snapshot/   jraft's snapshots of the group
 * </pre>
 *
 * Close the groups before the process. Thread-safe.
 */
public final class ReplicationProcess implements AutoCloseable {
    /** How often the shared log is purged of files that snapshots made dead. */
    static final long PURGE_INTERVAL_SECONDS = 30;
    private static final System.Logger LOG = System.getLogger(ReplicationProcess.class.getName());

    private final Path dataDir;
    private final PeerId address;
    private final SharedRaftLog log;
    private final RpcServer rpcServer;
    private final Set<String> openGroups = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService purger;

    private ReplicationProcess(Path dataDir, PeerId address, SharedRaftLog log, RpcServer rpcServer) {
        this.dataDir = dataDir;
        this.address = address;
        this.log = log;
        this.rpcServer = rpcServer;
        this.purger = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-raftlog-purge@" + address());
            t.setDaemon(true);
            return t;
        });
        purger.scheduleWithFixedDelay(this::purge, PURGE_INTERVAL_SECONDS, PURGE_INTERVAL_SECONDS,
                TimeUnit.SECONDS);
    }

    /**
     * Reclaims the shared log's space. A group's snapshot makes jraft truncate its log prefix
     * ({@code truncatePrefix}), which only marks entries dead; the engine frees files (and rewrites the few
     * live entries of lightly used groups out of old ones) only when asked, so the process asks periodically.
     */
    void purge() {
        try {
            log.engine().purgeExpiredFiles();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "purging the shared raft log of " + this + " failed", e);
        }
    }

    /**
     * Opens the shared log in {@code dataDir} and starts listening at {@code address} ({@code host:port}).
     *
     * @throws IllegalArgumentException if the address is not {@code host:port}
     * @throws IOException if the log cannot be opened or the port cannot be bound
     */
    public static ReplicationProcess open(Path dataDir, String address, RaftLogOptions logOptions)
            throws IOException {
        return open(dataDir, address, 0, logOptions);
    }

    /**
     * Like {@link #open(Path, String, RaftLogOptions)}, but listens on {@code listenPort} (all interfaces)
     * while peers know this process as {@code address}: for a member behind a port mapping or a proxy.
     * 0 listens on the address's port.
     */
    public static ReplicationProcess open(Path dataDir, String address, int listenPort, RaftLogOptions logOptions)
            throws IOException {
        PeerId peer = parsePeer(address);
        Files.createDirectories(dataDir);
        SharedRaftLog log = SharedRaftLog.open(dataDir.resolve("raftlog"), logOptions);
        Endpoint listen = listenPort == 0 ? peer.getEndpoint() : new Endpoint(peer.getIp(), listenPort);
        RpcServer server = RaftRpcServerFactory.createRaftRpcServer(listen);
        if (server instanceof BoltRpcServer bolt) {
            // Stop synchronously, so a process reopened at the same address can bind the port at once.
            bolt.getServer().option(BoltServerOption.SERVER_SYNC_STOP, true);
        }
        boolean started = false;
        try {
            started = server.init(null);
            if (!started) {
                throw new IOException("could not listen at " + address);
            }
            return new ReplicationProcess(dataDir, peer, log, server);
        } finally {
            if (!started) {
                log.close();
            }
        }
    }

    static PeerId parsePeer(String address) {
        PeerId peer = new PeerId();
        if (address == null || !peer.parse(address) || peer.isEmpty()) {
            throw new IllegalArgumentException("not a host:port address: " + address);
        }
        return peer;
    }

    public String address() {
        return address.getEndpoint().toString();
    }

    PeerId peer() {
        return address;
    }

    SharedRaftLog log() {
        return log;
    }

    /** The shared Raft log's counters (fdatasyncs, batches written, ...), for monitoring. */
    public EngineStats logStats() {
        return log.engine().stats();
    }

    RpcServer rpcServer() {
        return rpcServer;
    }

    Path groupDir(String group) {
        return dataDir.resolve("groups").resolve(group);
    }

    void claim(String group) {
        if (!openGroups.add(group)) {
            throw new IllegalStateException("group " + group + " is already open in " + this);
        }
    }

    void release(String group) {
        openGroups.remove(group);
    }

    /**
     * Removes what a member of {@code group} opened with {@code ReplicatedDb.openShared} left in this process
     * and in {@code shared}, once the member is closed and out of the group (moved to another process):
     * its Raft log and vote in the shared log, its snapshots, and last its applied index, so that a member
     * opened there later starts empty and catches up from the leader. The group's keys in {@code shared} are
     * the caller's to delete, before this. Idempotent: a crash midway is finished by calling it again.
     *
     * @throws IllegalStateException if the member is open
     */
    public void dropShared(String group, Db shared) throws IOException {
        claim(group);
        try {
            log().drop(List.of("log:" + group + "/log", "meta:" + group + "/meta"));
            Path home = groupDir(group);
            if (Files.exists(home)) {
                try (var paths = Files.walk(home)) {
                    for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(path);
                    }
                }
            }
            var state = shared.columnFamily(DbStateMachine.STATE_FAMILY);
            if (state.isPresent()) {
                shared.delete(state.get(), DbStateMachine.appliedKey(group));
                shared.syncWal(); // a flush when the database runs without its own log, as under Raft
            }
        } finally {
            release(group);
        }
    }

    /** Whether {@code shared} holds an applied index of {@code group}: a member of it applied there once. */
    public static boolean hasSharedState(String group, Db shared) {
        return shared.columnFamily(DbStateMachine.STATE_FAMILY)
                .map(state -> shared.get(state, DbStateMachine.appliedKey(group)) != null).orElse(false);
    }

    /** Stops listening and closes the shared log. Every group must be closed first. */
    @Override
    public void close() throws IOException {
        if (!openGroups.isEmpty()) {
            throw new IllegalStateException("groups still open: " + openGroups);
        }
        purger.shutdownNow();
        try {
            purger.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rpcServer.shutdown();
        log.close();
    }

    @Override
    public String toString() {
        return "ReplicationProcess[" + address() + ", " + dataDir + "]";
    }
}
