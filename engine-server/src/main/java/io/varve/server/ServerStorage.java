package io.varve.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.server.command.ReplicaRouting;
import io.varve.server.cluster.ClusterNode;
import io.varve.server.replica.RaftGroupMeters;
import io.varve.server.replica.RaftReplica;
import io.varve.server.replica.ReplicaNode;
import io.varve.server.replica.ReplicationSettings;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Where a server keeps its keyspace, chosen by the configuration at start: its own database, or in replicated
 * mode its member of a Raft group, whose database it reads and whose log its commits go through
 * (docs/replication.md), or in cluster mode its members of several groups sharing one database
 * (docs/cluster.md). {@link RaftReplica} and {@link ClusterNode} are referred to only on the replicated path,
 * so a standalone server never loads them, engine-replication or jraft.
 */
final class ServerStorage implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ServerStorage.class.getName());
    /** Redis's replication id: 40 hex digits, new each time the process starts. */
    private static final String STANDALONE_REPLID = newReplicationId();

    private final Db db;
    /** Null for a standalone server. */
    private final ReplicaNode replica;

    private ServerStorage(Db db, ReplicaNode replica) {
        this.db = db;
        this.replica = replica;
    }

    /** @param password the {@code requirepass} now: a cluster node sends it with its requests to other nodes */
    static ServerStorage open(ServerConfig config, Options options, java.util.function.Supplier<String> password)
            throws IOException {
        Optional<ReplicationSettings> replication = config.replication();
        if (replication.isEmpty()) {
            return new ServerStorage(Db.open(config.dir(), options), null);
        }
        // The engine keeps its own log under Raft although the Raft log already holds every write: turning it
        // off measured no gain, one unsynced write per applied batch beside a Raft round trip
        // (docs/durability.md, "Replicated writes").
        ReplicaNode replica = config.clusterGroups() > 0 || config.clusterJoin()
                ? ClusterNode.open(replication.get(), config.clusterGroups(), config.clusterJoin(), config.dir(),
                        options, password)
                : RaftReplica.open(replication.get(), config.dir(), options);
        return new ServerStorage(replica.database(), replica);
    }

    /**
     * The clock the compaction filter judges expiry by. Replicated, one at which nothing ever expires: an
     * expired key is removed only by a replicated delete (the leader's expiry sweep), applied in log order on
     * every member. A local drop by deadline could run ahead of the log on a lagging member — of a
     * collection whose PERSIST or new deadline is still to be applied there, losing its fields for good —
     * or behind a leader whose clock is slow, and no grace period bounds how far a member may lag.
     */
    static LongSupplier compactionClock(ServerConfig config, LongSupplier clock) {
        return config.replication().isEmpty() ? clock : () -> Long.MIN_VALUE;
    }

    Db db() {
        return db;
    }

    Keyspace newKeyspace(ServerConfig config, LongSupplier clock) {
        if (replica == null) {
            return new Keyspace(db, config.fsync() == ServerConfig.Fsync.ALWAYS, clock, config.databases());
        }
        // One database, as in Redis Cluster; commits go through the Raft log, durable on a majority.
        Keyspace keyspace = new Keyspace(db, replica, false, clock, 1);
        replica.attach(keyspace);
        return keyspace;
    }

    /** Replicated: tells {@code changes} of what the group applies here. Standalone: nothing to tell. */
    void onApplied(AppliedChanges changes) {
        if (replica != null) {
            replica.onApplied(changes);
        }
    }

    /** Whether background writers (the expiry sweep) may write now: replicated, only the caught-up leader. */
    boolean mayWrite() {
        return replica == null || replica.readyToWrite();
    }

    /**
     * Replicated: meters per Raft group this node holds, in {@code registry}; the returned action brings them up
     * to date and runs before each scrape. Standalone: no groups, nothing to do.
     */
    Runnable groupMeters(MeterRegistry registry) {
        return replica == null ? () -> { } : new RaftGroupMeters(registry, replica::raftGroups)::refresh;
    }

    ReplicaRouting routing() {
        return replica != null ? replica : ReplicaRouting.STANDALONE;
    }

    private static String newReplicationId() {
        byte[] bytes = new byte[20];
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(bytes);
        return java.util.HexFormat.of().formatHex(bytes);
    }

    /** INFO replication's fields. */
    Map<String, Object> replicationInfo() {
        if (replica != null) {
            return replica.infoFields();
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("role", "master");
        fields.put("connected_slaves", 0);
        // A standalone server has no replication stream; Redis without replicas reports these values.
        fields.put("master_failover_state", "no-failover");
        fields.put("master_replid", STANDALONE_REPLID);
        fields.put("master_replid2", "0".repeat(40));
        fields.put("master_repl_offset", 0);
        fields.put("second_repl_offset", -1);
        fields.put("repl_backlog_active", 0);
        fields.put("repl_backlog_size", 1048576);
        fields.put("repl_backlog_first_byte_offset", 0);
        fields.put("repl_backlog_histlen", 0);
        return fields;
    }

    /** Flushes and closes the database (replicated: after stopping the Raft member). */
    @Override
    public void close() {
        if (replica != null) {
            try {
                replica.close();
                LOG.log(System.Logger.Level.INFO, "raft member and database closed; bye");
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "closing the raft member failed", e);
            }
            return;
        }
        try {
            db.flush();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "final flush failed", e);
        }
        db.close();
        LOG.log(System.Logger.Level.INFO, "database flushed and closed; bye");
    }
}
