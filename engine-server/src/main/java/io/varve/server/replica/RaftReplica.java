package io.varve.server.replica;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationException;
import io.varve.replication.ReplicationProcess;
import io.varve.raftlog.RaftLogOptions;
import io.varve.server.command.ClusterView;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.Connection;
import io.varve.server.command.KeySlot;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeSet;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The server's keyspace as one Raft group ({@link ReplicatedDb}, group {@value #GROUP}) over all slots.
 *
 * <p><b>Writes.</b> Commands run on the leader only. A command computes its whole batch there, under its keys'
 * stripe locks, from the leader's state (absolute expiry times, chosen members, formatted numbers, new
 * collection versions), and {@link #write} proposes that batch and returns once it is committed and applied
 * to the leader's database; the locks are released after. Followers apply the same bytes and never run a
 * command's logic, so nothing time- or random-dependent is decided twice.
 *
 * <p><b>Leader readiness.</b> A new leader may not yet have applied everything committed in earlier terms.
 * Before its first write (or read) in a term it waits for a read index, which completes only once it has
 * committed an entry of its own term and applied everything before it; it then resumes the version clock
 * above the floor its predecessor replicated. A write whose outcome is unknown (timed out after proposing)
 * may still apply later; until the leader has applied its whole log as it stood then, further writes are
 * refused with TRYAGAIN, so no command reads a state that such an entry would overwrite afterwards.
 *
 * <p><b>Reads.</b> Every keyed command on the leader, read or write, starts after a read index (linearizable;
 * with lease reads, as safe as the lease): a write that turns out to change nothing answers from what it read. A follower redirects keyed commands with {@code MOVED}, or answers reads from its own,
 * possibly stale, state on a connection that sent READONLY.
 *
 * <p><b>Blocked clients.</b> A client blocked here (BLPOP ...) waits for a write only a leader makes. When
 * this member stops leading, every blocked client is answered Redis's {@code UNBLOCKED} error, as Redis
 * answers clients blocked on a master that turns replica, and retries on the new leader; a blocking command
 * registering as the member steps down is refused the same way ({@link #refusesWaiting}).
 *
 * <p>Thread-safe: admission runs on many command threads; the fields it shares are volatile and monotonic
 * enough that a race only costs an extra read index.
 */
public final class RaftReplica implements ReplicaNode {

    static final String GROUP = "keyspace";
    /** How long a blocking Raft call (a write's commit, a read index) may take before the client is told. */
    private static final long REQUEST_TIMEOUT_MS = 5_000;
    private static final String CLUSTER_DOWN = "CLUSTERDOWN The cluster is down";
    private static final String READ_ONLY = "READONLY You can't write against a read only replica.";
    private static final String UNBLOCKED =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";

    private final ReplicationProcess process;
    private final ReplicatedDb replicated;
    private final ReplicationSettings settings;
    private volatile Keyspace keyspace;
    /** The leader term in which this member last confirmed it is caught up; -1 for none. */
    private volatile long readyTerm = -1;
    /** Writes wait until the applied index reaches this (set after a write of unknown outcome). */
    private volatile long catchUpIndex;

    private RaftReplica(ReplicationProcess process, ReplicatedDb replicated, ReplicationSettings settings) {
        this.process = process;
        this.replicated = replicated;
        this.settings = settings;
    }

    /** Opens the member: its database under {@code dir}/groups/keyspace/db and the shared Raft log under dir. */
    public static ReplicaNode open(ReplicationSettings settings, Path dir, Options dbOptions) throws IOException {
        ReplicatedDbOptions options = ReplicatedDbOptions.defaults()
                .withDbOptions(dbOptions)
                .withElectionTimeoutMs(settings.electionTimeoutMs())
                .withSnapshotIntervalSecs(settings.snapshotIntervalSecs())
                .withRequestTimeoutMs(REQUEST_TIMEOUT_MS)
                .withReadMode(settings.leaseReads() ? ReplicatedDbOptions.ReadMode.LEASE
                        : ReplicatedDbOptions.ReadMode.LINEARIZABLE);
        ReplicationProcess process = ReplicationProcess.open(dir, settings.raftAddress(), settings.listenPort(),
                RaftLogOptions.defaults());
        try {
            ReplicatedDb db = ReplicatedDb.open(process, GROUP, settings.raftPeers(), options);
            return new RaftReplica(process, db, settings);
        } catch (IOException | RuntimeException e) {
            process.close();
            throw e;
        }
    }

    @Override
    public Db database() {
        return replicated.database();
    }

    @Override
    public void attach(Keyspace keyspace) {
        this.keyspace = keyspace;
        // Clients blocked here wait for writes only a leader makes: once deposed, tell them, as Redis does
        // when a master turns replica, so they retry on the new leader.
        replicated.onLeadershipLost(() -> keyspace.blocking().unblockAll(UNBLOCKED));
    }

    // ---- commits

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        try {
            replicated.write(batch);
        } catch (NotLeaderException e) {
            throw new RedisError("TRYAGAIN this member stopped leading before the write was proposed; retry");
        } catch (ReplicationException e) {
            catchUpIndex = replicated.status().lastLogIndex();
            throw new RedisError("ERR the write may or may not have been applied: " + e.getMessage());
        }
    }

    @Override
    public boolean local() {
        return false;
    }

    // ---- routing

    @Override
    public boolean replicated() {
        return true;
    }

    @Override
    public String admit(CommandSpec spec, byte[][] args, Connection connection) {
        String name = spec.name();
        if (name.equals("swapdb")) {
            return "ERR SWAPDB is not allowed in cluster mode";
        }
        boolean write = spec.flags().contains("write");
        boolean exec = name.equals("exec");
        byte[] key = firstKey(spec, args);
        if (key == null && !write && !exec) {
            return null; // keyless reads and administration run on every member, on its local state
        }
        if (!replicated.isLeader()) {
            if (exec || (!write && connection.replicaReads())) {
                return null; // a stale read; EXEC's commands were each admitted when queued
            }
            if (key == null) {
                return name.startsWith("flush") ? READ_ONLY : redirect(0);
            }
            return redirect(KeySlot.of(key));
        }
        try {
            ensureReady();
            if (write && replicated.status().appliedIndex() < catchUpIndex) {
                return "TRYAGAIN an earlier write of unknown outcome is still being replicated; retry";
            }
            // Writes too: one that ends up changing nothing (SET NX on an existing key, DEL of an absent one)
            // answers from what it read, and a deposed leader must not answer from a stale state.
            replicated.awaitReadIndex();
            return null;
        } catch (NotLeaderException e) {
            return redirect(key == null ? 0 : KeySlot.of(key));
        } catch (ReplicationException e) {
            return replicated.leaderTerm() < 0 ? "TRYAGAIN the leader is starting; retry"
                    : CLUSTER_DOWN + " (no majority confirmed this leader)";
        }
    }

    @Override
    public String refusesWaiting() {
        return replicated.isLeader() ? null : UNBLOCKED;
    }

    @Override
    public boolean readyToWrite() {
        if (!replicated.isLeader()) {
            return false;
        }
        try {
            ensureReady();
            return replicated.status().appliedIndex() >= catchUpIndex;
        } catch (ReplicationException e) {
            return false;
        }
    }

    /** Once per leader term: waits until everything committed before the term is applied here. */
    private void ensureReady() {
        long term = replicated.leaderTerm();
        if (term > 0 && term == readyTerm) {
            return;
        }
        replicated.awaitReadIndex();
        Keyspace ks = keyspace;
        if (ks != null) {
            ks.resumeAsWriter();
        }
        readyTerm = term;
    }

    private String redirect(int slot) {
        String leader = leaderClientAddress();
        return leader == null ? CLUSTER_DOWN : "MOVED " + slot + " " + leader;
    }

    private String leaderClientAddress() {
        return replicated.leader().flatMap(settings::clientAddressOf).orElse(null);
    }

    /**
     * The key a command's slot is computed from: its first key argument, or for the commands whose keys
     * follow a count (LMPOP, ZMPOP and their blocking forms) the first of those; null if it has none.
     */
    static byte[] firstKey(CommandSpec spec, byte[][] args) {
        int at = switch (spec.name()) {
            case "lmpop", "zmpop" -> 2;
            case "blmpop", "bzmpop" -> 3;
            default -> spec.firstKey();
        };
        return at > 0 && at < args.length ? args[at] : null;
    }

    @Override
    public ClusterView cluster() {
        String leader = replicated.leader().orElse(null);
        List<ClusterView.Member> members = new ArrayList<>();
        for (String raft : new TreeSet<>(settings.peers().keySet())) {
            String client = settings.peers().get(raft);
            int colon = client.lastIndexOf(':');
            members.add(new ClusterView.Member(nodeId(raft), client.substring(0, colon),
                    Integer.parseInt(client.substring(colon + 1)), raft.equals(leader),
                    raft.equals(settings.raftAddress())));
        }
        return new ClusterView(members);
    }

    /** A Redis Cluster node id: 40 hex digits, here the SHA-1 of the member's Raft address (stable, unique). */
    static String nodeId(String raftAddress) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(raftAddress.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    // ---- INFO replication

    @Override
    public Map<String, Object> infoFields() {
        ReplicatedDb.MemberStatus status = replicated.status();
        boolean leader = replicated.isLeader();
        String leaderClient = leaderClientAddress();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("role", leader ? "master" : "slave");
        if (!leader) {
            int colon = leaderClient == null ? -1 : leaderClient.lastIndexOf(':');
            f.put("master_host", colon < 0 ? "" : leaderClient.substring(0, colon));
            f.put("master_port", colon < 0 ? "" : leaderClient.substring(colon + 1));
            f.put("master_link_status", leaderClient == null ? "down" : "up");
        } else {
            f.put("connected_slaves", replicated.peers().size() - 1);
        }
        f.put("raft_role", status.role());
        f.put("raft_group", GROUP);
        f.put("raft_address", settings.raftAddress());
        f.put("raft_leader", replicated.leader().orElse(""));
        f.put("raft_leader_client_address", leaderClient == null ? "" : leaderClient);
        f.put("raft_term", status.term());
        f.put("raft_commit_index", status.commitIndex());
        f.put("raft_applied_index", status.appliedIndex());
        f.put("raft_last_log_index", status.lastLogIndex());
        f.put("raft_peers", replicated.peers().stream()
                .map(p -> p + "/" + settings.clientAddressOf(p).orElse("?"))
                .collect(Collectors.joining(",")));
        f.put("raft_read_mode", settings.leaseReads() ? "lease" : "readindex");
        f.put("raft_snapshot_interval_secs", settings.snapshotIntervalSecs());
        return f;
    }

    @Override
    public void close() throws IOException {
        try {
            replicated.database().flush();
        } finally {
            try {
                replicated.close();
            } finally {
                process.close();
            }
        }
    }
}
