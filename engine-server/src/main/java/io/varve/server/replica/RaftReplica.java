package io.varve.server.replica;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;
import io.varve.raftlog.RaftLogOptions;
import io.varve.server.command.ClusterView;
import io.varve.server.command.CommandFlag;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.Connection;
import io.varve.server.command.KeySlot;
import io.varve.server.resp.RedisError;
import io.varve.server.store.AppliedChanges;
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
 * <p><b>Readiness and writes of unknown outcome.</b> A new leader first catches up with its term, and a
 * write whose outcome is unknown holds later writes back until it is settled: {@link GroupMember}, which this
 * class uses for its one group, keeps those rules.
 *
 * <p><b>EXEC.</b> A member that is not the leader refuses EXEC whole with the redirect its commands would
 * get, before running any of them, and discards the transaction, as Redis Cluster does. Watches are marked
 * by every applied entry on every member ({@link #onApplied}), so a leader elected while a client watched
 * keys on it still aborts that client's EXEC for writes its predecessor made.
 *
 * <p><b>Reads.</b> Every keyed read on the leader, EXEC, scripts and blocking commands start after a read index
 * (linearizable; with lease reads, as safe as the lease). A plain write does not: if it commits, its entry
 * commits only while this member leads and it held the locks of what it read until the entry applied; if it
 * commits nothing it answers from what it read, so {@link #confirmAnswer} waits for the read index before the
 * answer leaves. Blind SETs grouped into one commit ({@link #takesBlindWriteAtOnce}) skip admission: they
 * read nothing and always propose. A follower redirects keyed commands with {@code MOVED}, or answers reads
 * from its own, possibly stale, state on a connection that sent READONLY; such a read holds off the
 * installation of a snapshot ({@link #run}), so it sees the state before or after it, never a half-cleared one.
 *
 * <p><b>Blocked clients.</b> A client blocked here (BLPOP ...) waits for a write only a leader makes. When
 * this member stops leading, every blocked client is answered Redis's {@code UNBLOCKED} error, as Redis
 * answers clients blocked on a master that turns replica, and retries on the new leader; a blocking command
 * registering as the member steps down is refused the same way ({@link #refusesWaiting}).
 *
 * <p>Thread-safe: admission runs on many command threads; {@link GroupMember} keeps the shared state.
 */
public final class RaftReplica implements ReplicaNode {

    static final String GROUP = "keyspace";
    /** How long a blocking Raft call (a write's commit, a read index) may take before the client is told. */
    private static final long REQUEST_TIMEOUT_MS = 5_000;
    private static final String READ_ONLY = "READONLY You can't write against a read only replica.";
    private static final String UNBLOCKED =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";

    private final ReplicationProcess process;
    private final ReplicatedDb replicated;
    private final GroupMember member;
    private final ReplicationSettings settings;
    /** The admission stamp of the command running on this thread ({@link GroupMember#admitOnLeader}). */
    private static final ThreadLocal<long[]> ADMITTED_AT =
            ThreadLocal.withInitial(() -> new long[] {GroupMember.BACKGROUND});
    /**
     * Whether the command running on this thread was admitted as a write without a read index and has not
     * committed yet: if it answers without committing, {@link #confirmAnswer} waits for the read index.
     */
    private static final ThreadLocal<boolean[]> UNCONFIRMED = ThreadLocal.withInitial(() -> new boolean[1]);

    RaftReplica(ReplicationProcess process, ReplicatedDb replicated, ReplicationSettings settings) {
        this.process = process;
        this.replicated = replicated;
        this.member = new GroupMember(replicated, "write-barrier");
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
        member.attach(keyspace);
        // Clients blocked here wait for writes only a leader makes: once deposed, tell them, as Redis does
        // when a master turns replica, so they retry on the new leader.
        replicated.onLeadershipLost(() -> keyspace.blocking().unblockAll(UNBLOCKED));
    }

    @Override
    public void onApplied(AppliedChanges changes) {
        member.onApplied(changes);
    }

    // ---- commits

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        member.write(batch, ADMITTED_AT.get()[0]);
        // Committed in this member's term: it led when the command read, which held its keys' locks since.
        UNCONFIRMED.get()[0] = false;
    }

    @Override
    public String confirmAnswer() {
        boolean[] unconfirmed = UNCONFIRMED.get();
        if (!unconfirmed[0]) {
            return null;
        }
        unconfirmed[0] = false;
        try {
            member.confirmLeading();
            return null;
        } catch (NotLeaderException e) {
            return "TRYAGAIN this member stopped leading before the command could answer; retry";
        } catch (RedisError e) {
            return e.getMessage();
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
        // A command that runs without admission (keyless) writes, if at all, as a background writer would.
        ADMITTED_AT.get()[0] = GroupMember.BACKGROUND;
        UNCONFIRMED.get()[0] = false;
        String name = spec.name();
        if (name.equals("swapdb")) {
            return "ERR SWAPDB is not allowed in cluster mode";
        }
        // EXEC carries no write flag but runs queued writes: it is admitted as a write.
        boolean exec = name.equals("exec");
        if (exec && !connection.transaction().active()) {
            return null; // EXEC without MULTI: its own error, as in Redis Cluster
        }
        boolean write = exec || spec.isWrite();
        byte[] key = spec.firstKeyIn(args);
        if (key == null && !write && !exec) {
            return null; // keyless reads and administration run on every member, on its local state
        }
        if (!replicated.isLeader()) {
            if (!write && connection.replicaReads()) {
                return null; // a stale read
            }
            if (key == null) {
                return name.startsWith("flush") ? READ_ONLY : redirect(0);
            }
            return redirect(KeySlot.of(key));
        }
        try {
            boolean script = spec.has(CommandFlag.MAY_REPLICATE);
            // A plain write confirms this member leads by its commit, or before it answers without one. EXEC
            // and scripts run many commands, and a blocking command may park before answering: they wait now.
            boolean confirmLater = spec.isWrite() && !exec && !script && !spec.has(CommandFlag.BLOCKING);
            // A script may write too: it settles the unknown outcomes its writes would otherwise be refused for.
            ADMITTED_AT.get()[0] = member.admitOnLeader(write || script, !confirmLater);
            UNCONFIRMED.get()[0] = confirmLater;
            return null;
        } catch (NotLeaderException e) {
            return redirect(key == null ? 0 : KeySlot.of(key));
        } catch (RedisError e) {
            return e.getMessage();
        }
    }

    @Override
    public boolean takesBlindWriteAtOnce(byte[] key) {
        if (!member.admitsBlindWriteAtOnce()) {
            return false;
        }
        // Its commit, on this thread or a committer's, is judged as a background writer's: every unknown
        // outcome settled when it proposes. A blind write read nothing an earlier outcome could change.
        ADMITTED_AT.get()[0] = GroupMember.BACKGROUND;
        return true;
    }

    @Override
    public String refusesWaiting() {
        return replicated.isLeader() ? null : UNBLOCKED;
    }

    @Override
    public boolean readyToWrite() {
        ADMITTED_AT.get()[0] = GroupMember.BACKGROUND; // a background writer: judged by the settled count
        return member.readyToWrite();
    }

    @Override
    public void run(Runnable command) {
        if (replicated.isLeader()) {
            command.run(); // a leader never installs a snapshot
            return;
        }
        replicated.readWhileNoSnapshotLoads(() -> {
            command.run();
            return null;
        });
    }

    private String redirect(int slot) {
        String leader = leaderClientAddress();
        return leader == null ? GroupMember.CLUSTER_DOWN : "MOVED " + slot + " " + leader;
    }

    private String leaderClientAddress() {
        return replicated.leader().flatMap(settings::clientAddressOf).orElse(null);
    }

    @Override
    public ClusterView cluster() {
        String leader = replicated.leader().orElse(null);
        List<ClusterView.Node> nodes = new ArrayList<>();
        for (String raft : new TreeSet<>(settings.peers().keySet())) {
            String client = settings.peers().get(raft);
            int colon = client.lastIndexOf(':');
            nodes.add(new ClusterView.Node(nodeId(raft), client.substring(0, colon),
                    Integer.parseInt(client.substring(colon + 1)), raft.equals(settings.raftAddress())));
        }
        // One shard: the group over every slot.
        ClusterView.Shard shard = new ClusterView.Shard(List.of(new ClusterView.SlotRange(0, KeySlot.SLOTS - 1)),
                leader == null || !settings.peers().containsKey(leader) ? null : nodeId(leader),
                nodes.stream().map(ClusterView.Node::id).toList());
        return new ClusterView(nodes, List.of(shard), 0);
    }

    /** A Redis Cluster node id: 40 hex digits, here the SHA-1 of the member's Raft address (stable, unique). */
    public static String nodeId(String raftAddress) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(raftAddress.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    @Override
    public List<ReplicatedDb> raftGroups() {
        return List.of(replicated);
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
            f.put("connected_slaves", replicated.membership().peers().size() - 1);
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
        f.put("raft_peers", replicated.membership().peers().stream()
                .map(p -> p + "/" + settings.clientAddressOf(p).orElse("?"))
                .collect(Collectors.joining(",")));
        f.put("raft_read_mode", settings.leaseReads() ? "lease" : "readindex");
        f.put("raft_snapshot_interval_secs", settings.snapshotIntervalSecs());
        // Shared with every group of the process: with one group, divide by the writes to get syncs per write.
        f.put("raft_log_syncs", process.logStats().dataSyncs());
        f.put("raft_read_indexes", replicated.readIndexesRequested());
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
