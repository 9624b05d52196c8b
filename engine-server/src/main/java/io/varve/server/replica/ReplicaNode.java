package io.varve.server.replica;

import io.varve.core.Db;
import io.varve.replication.ReplicatedDb;
import io.varve.server.command.ReplicaRouting;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.CommitTarget;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * This server as one member of a Raft group holding the whole keyspace ({@link RaftReplica}), or as a
 * cluster node, a member of several groups each holding slot ranges ({@code cluster.ClusterNode}): the
 * database it reads, the logs its commits go through, and which commands it runs or redirects. A standalone
 * server never loads either class, so it never loads the Raft library either.
 */
public interface ReplicaNode extends CommitTarget, ReplicaRouting, AutoCloseable {

    /** The local database: read it freely; write it only through {@link #write}. */
    Db database();

    /** Tells the member the keyspace over its database, once built. */
    void attach(Keyspace keyspace);

    /**
     * Whether this member may start a write now: it is the leader and its state includes every entry
     * committed before its term (it may wait to make sure). Background writers (the expiry sweep) ask first.
     */
    boolean readyToWrite();

    /** Tells {@code changes} of every entry applied and every snapshot installed on this member from now on. */
    void onApplied(AppliedChanges changes);

    /**
     * The Raft members this node holds now, for {@link RaftGroupMeters}: a group retired by a replica move is
     * gone from the list before its member closes. Any thread.
     */
    List<ReplicatedDb> raftGroups();

    /** The fields of INFO replication. */
    Map<String, Object> infoFields();

    /** Flushes and stops the member: its Raft node, then its database. */
    @Override
    void close() throws IOException;
}
