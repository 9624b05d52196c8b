package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.raftlog.RaftLogOptions;
import io.varve.replication.NotLeaderException;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;
import io.varve.server.command.ClusterView;
import io.varve.server.command.CommandFlag;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.Connection;
import io.varve.server.command.KeySlot;
import io.varve.server.command.KeySpec;
import io.varve.server.command.MultiState;
import io.varve.server.command.ServedSlots;
import io.varve.server.replica.GroupMember;
import io.varve.server.replica.RaftReplica;
import io.varve.server.replica.ReplicaNode;
import io.varve.server.replica.ReplicationSettings;
import io.varve.server.resp.RedisError;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * This server as a node of a cluster (docs/cluster.md): the hash slots are split among several Raft groups
 * ({@link SlotMap}), this node is a member of every group, and all of them share the node's one Raft log
 * engine ({@link ReplicationProcess}) and its one engine-core database, where each group applies the keys of
 * its own slots. A command runs on the leader of the group owning its keys' slot; elsewhere it is answered
 * {@code MOVED <slot> <leader>}, as Redis Cluster answers, and cluster clients follow.
 *
 * <p><b>Routing.</b> {@link #admit} finds the command's keys from its {@link CommandSpec} (the same key
 * positions COMMAND GETKEYS reports): keys of different slots are refused with {@code CROSSSLOT}, and a
 * transaction's watched and queued keys are tied to one slot ({@link MultiState#pinSlot}), so EXEC runs on
 * that slot's group as one entry. On the group's leader the command is admitted by its {@link GroupMember}
 * (caught up in its term, earlier unknown outcomes settled, a read index); the member and its admission
 * stamp are remembered for the thread, and {@link #write} proposes the command's batch through that group.
 * A batch names its group by its keys too ({@link BatchRouting}); one that spans groups is refused.
 *
 * <p><b>Keyless commands</b> (SCAN, KEYS, DBSIZE, RANDOMKEY, INFO) read this node's local state, which holds
 * every group's data as far as it has applied it; those that walk keys see only the slots this node serves
 * ({@link #servedSlots}), and FLUSHALL/FLUSHDB delete those slots' keys group by group, each through its
 * group. Other keyless writes (SWAPDB) are refused.
 *
 * <p><b>Pub/sub.</b> PUBLISH runs on any node and reaches the others through {@link PeerLinks}. A shard
 * channel is a key: SPUBLISH is redirected to its slot's leader, which hands the message to the group's other
 * members (every node); SSUBSCRIBE is accepted on any member, as Redis accepts it on a shard's replicas.
 *
 * <p><b>Leaders</b> are spread by a {@link LeaderBalancer}: group {@code g} prefers node {@code g mod n}.
 *
 * <p>Thread-safe: commands run on many threads; each thread's current group is a thread-local, the
 * members keep their own shared state.
 */
public final class ClusterNode implements ReplicaNode {

    /** How long a blocking Raft call (a write's commit, a read index) may take before the client is told. */
    private static final long REQUEST_TIMEOUT_MS = 5_000;
    static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
    private static final String UNBLOCKED =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";
    private static final System.Logger LOG = System.getLogger(ClusterNode.class.getName());

    private final ReplicationProcess process;
    private final Db db;
    private final ClusterTopology topology;
    private final GroupMember[] members;
    private final LeaderBalancer balancer;
    private final PeerLinks peers;
    /** The slots of each group (index = group), from the slot map. */
    private final BitSet[] slotsOfGroup;
    private static final int NONE = -1;
    private static final int EVERY = -2;
    /**
     * The group the command running on this thread was admitted for (-1: none), its admission stamp, and
     * which groups' snapshot installs {@link #run} holds off: one group (a replica read of it), {@link #EVERY}
     * follower group (a keyless read), or {@link #NONE}.
     */
    private static final ThreadLocal<long[]> CURRENT =
            ThreadLocal.withInitial(() -> new long[] {-1, GroupMember.BACKGROUND, NONE});
    /** The keyless commands that read the keys of the slots this node serves. */
    private static final java.util.Set<String> WALKS_KEYS = java.util.Set.of("scan", "keys", "dbsize", "randomkey",
            "cluster");

    private ClusterNode(ReplicationProcess process, Db db, ClusterTopology topology, GroupMember[] members) {
        this.process = process;
        this.db = db;
        this.topology = topology;
        this.members = members;
        this.balancer = new LeaderBalancer(topology, members);
        this.peers = new PeerLinks(topology);
        this.slotsOfGroup = new BitSet[members.length];
        for (int g = 0; g < members.length; g++) {
            BitSet slots = new BitSet(KeySlot.SLOTS);
            topology.slots().rangesOf(g).forEach(r -> slots.set(r.first(), r.last() + 1));
            slotsOfGroup[g] = slots;
        }
    }

    /**
     * Opens the node: the shared Raft log under {@code dir}/raftlog, the database at {@code dir}/db, and a
     * member of each of the {@code groups} groups, all nodes of {@code settings} being members of each.
     */
    public static ReplicaNode open(ReplicationSettings settings, int groups, Path dir, Options dbOptions)
            throws IOException {
        ClusterTopology topology = ClusterTopology.of(settings, SlotMap.evenly(groups, 1));
        ReplicatedDbOptions options = ReplicatedDbOptions.defaults()
                .withDbOptions(dbOptions)
                .withSnapshotIntervalSecs(settings.snapshotIntervalSecs())
                .withElectionTimeoutMs(settings.electionTimeoutMs())
                .withRequestTimeoutMs(REQUEST_TIMEOUT_MS)
                .withReadMode(settings.leaseReads() ? ReplicatedDbOptions.ReadMode.LEASE
                        : ReplicatedDbOptions.ReadMode.LINEARIZABLE);
        ReplicationProcess process = ReplicationProcess.open(dir, settings.raftAddress(), settings.listenPort(),
                RaftLogOptions.defaults());
        Db db = null;
        List<ReplicatedDb> opened = new ArrayList<>();
        try {
            db = Db.open(dir.resolve("db"), dbOptions);
            GroupMember[] members = new GroupMember[groups];
            for (int g = 0; g < groups; g++) {
                int owner = g;
                ReplicatedDb group = ReplicatedDb.openShared(process, ClusterTopology.groupName(g),
                        settings.raftPeers(), options, db, () -> GroupKeyRanges.of(topology.slots(), owner));
                opened.add(group);
                members[g] = new GroupMember(group, "write-barrier/" + ClusterTopology.groupName(g));
            }
            ClusterNode node = new ClusterNode(process, db, topology, members);
            node.balancer.start();
            return node;
        } catch (IOException | RuntimeException e) {
            for (ReplicatedDb group : opened) {
                try {
                    group.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (db != null) {
                db.close();
            }
            process.close();
            throw e;
        }
    }

    @Override
    public Db database() {
        return db;
    }

    /** This node's member of group {@code g}, for tests. */
    ReplicatedDb group(int g) {
        return members[g].replicated();
    }

    @Override
    public void attach(Keyspace keyspace) {
        for (GroupMember member : members) {
            member.attach(keyspace);
            // A client blocked on a key of a group this node stops leading waits for writes made elsewhere
            // now: tell it, as Redis does when a master turns replica (clients blocked on other groups'
            // keys are told too and retry, which costs them a round trip).
            member.replicated().onLeadershipLost(() -> keyspace.blocking().unblockAll(UNBLOCKED));
        }
    }

    @Override
    public void onApplied(AppliedChanges changes) {
        for (GroupMember member : members) {
            member.onApplied(changes);
        }
    }

    // ---- routing

    @Override
    public boolean replicated() {
        return true;
    }

    @Override
    public String admit(CommandSpec spec, byte[][] args, Connection connection) {
        long[] current = CURRENT.get();
        current[0] = -1;
        current[1] = GroupMember.BACKGROUND;
        current[2] = NONE;
        String name = spec.name();
        MultiState tx = connection.transaction();
        boolean exec = name.equals("exec");
        if (exec && !tx.active()) {
            return null; // EXEC without MULTI: its own error
        }
        int slot;
        if (exec) {
            slot = tx.pinnedSlot();
        } else {
            try {
                slot = slotOf(spec, args);
            } catch (KeySpec.InvalidKeyArguments malformed) {
                return null; // the command reports its own argument error and writes nothing
            }
            if (slot == BatchRouting.SEVERAL_GROUPS) {
                return CROSSSLOT;
            }
        }
        if (name.equals("ssubscribe") || name.equals("sunsubscribe")) {
            return null; // every node is a member of every group, so any node may carry its shard channels
        }
        // SPUBLISH writes nothing but must reach its slot's leader, which forwards it to the group
        boolean write = exec || spec.isWrite() || name.equals("spublish");
        if (slot < 0) {
            if (write && !exec) {
                if ((name.equals("flushall") || name.equals("flushdb")) && !tx.active()) {
                    return null; // the slots this node serves, group by group (servedSlots)
                }
                return "ERR " + name.toUpperCase(Locale.ROOT) + " is not allowed in cluster mode";
            }
            current[2] = WALKS_KEYS.contains(name) ? EVERY : NONE;
            return null; // keyless: this node's local state
        }
        boolean tiesTransaction = (tx.active() && !exec) || name.equals("watch");
        if (tiesTransaction && tx.pinnedSlot() >= 0 && tx.pinnedSlot() != slot) {
            return CROSSSLOT;
        }
        int group = topology.slots().groupOf(slot);
        GroupMember member = members[group];
        if (!member.isLeader()) {
            if (!write && connection.replicaReads()) {
                current[2] = group;
                return null; // a possibly stale read of this node's state
            }
            return redirect(slot, group);
        }
        try {
            current[1] = member.admitOnLeader(write || spec.has(CommandFlag.MAY_REPLICATE));
            current[0] = group;
        } catch (NotLeaderException e) {
            return redirect(slot, group);
        } catch (RedisError e) {
            return e.getMessage();
        }
        if (tiesTransaction) {
            tx.pinSlot(slot);
        }
        return null;
    }

    /** The one slot of the command's keys; -1 with none, {@link BatchRouting#SEVERAL_GROUPS} for several. */
    private static int slotOf(CommandSpec spec, byte[][] args) {
        int slot = -1;
        for (int position : spec.keyPositions(args)) {
            int s = KeySlot.of(args[position]);
            if (slot >= 0 && s != slot) {
                return BatchRouting.SEVERAL_GROUPS;
            }
            slot = s;
        }
        return slot;
    }

    private String redirect(int slot, int group) {
        String leader = members[group].replicated().leader().flatMap(topology::clientAddressOf).orElse(null);
        return leader == null ? "CLUSTERDOWN The cluster is down" : "MOVED " + slot + " " + leader;
    }

    /**
     * Runs an admitted command while the groups it reads as a follower install no snapshot, so it sees each
     * group's ranges before or after an install, never emptied halfway: the group of a replica read, or every
     * group this node follows for a keyless command that walks the keys of served slots (SCAN, KEYS, DBSIZE,
     * RANDOMKEY, CLUSTER COUNTKEYSINSLOT/GETKEYSINSLOT). Leaders never install.
     */
    @Override
    public void run(Runnable command) {
        long[] current = CURRENT.get();
        int held = (int) current[2];
        current[2] = NONE; // commands run inside this one (EXEC's) are covered by it
        if (held == NONE) {
            command.run();
        } else {
            runHolding(held == EVERY ? 0 : held, held == EVERY ? members.length : held + 1, command);
        }
    }

    /** Runs {@code command} holding off the installs of the follower groups among {@code [from, to)}. */
    private void runHolding(int from, int to, Runnable command) {
        if (from == to) {
            command.run();
        } else if (members[from].isLeader()) {
            runHolding(from + 1, to, command);
        } else {
            members[from].replicated().readWhileNoSnapshotLoads(() -> {
                runHolding(from + 1, to, command);
                return null;
            });
        }
    }

    @Override
    public String refusesWaiting() {
        int group = (int) CURRENT.get()[0];
        return group < 0 || members[group].isLeader() ? null : UNBLOCKED;
    }

    // ---- commits

    @Override
    public void write(WriteBatch batch, WriteOptions options) {
        long[] current = CURRENT.get();
        int group = BatchRouting.groupOf(batch, topology.slots());
        if (group == BatchRouting.SEVERAL_GROUPS) {
            throw new RedisError(CROSSSLOT);
        }
        if (group == BatchRouting.NO_GROUP) {
            group = (int) current[0];
            if (group < 0) {
                throw new RedisError("ERR a write outside a keyed command has no group in cluster mode");
            }
        }
        GroupMember member = members[group];
        long stamp = current[0] == group ? current[1] : GroupMember.BACKGROUND;
        if (stamp == GroupMember.BACKGROUND && !member.readyToWrite()) {
            throw new RedisError("TRYAGAIN this node does not lead the group of these keys now; retry");
        }
        member.write(batch, stamp);
    }

    /** Routing reads each write's slot from its keys ({@link BatchRouting}), and snapshots export slot ranges. */
    @Override
    public boolean slotsInKeys() {
        return true;
    }

    @Override
    public boolean writesHere(byte[] engineKey) {
        int slot = BatchRouting.slotOf(engineKey);
        return slot >= 0 && members[topology.slots().groupOf(slot)].isLeader();
    }

    @Override
    public boolean local() {
        return false;
    }

    @Override
    public boolean readyToWrite() {
        long[] current = CURRENT.get();
        current[0] = -1;
        current[1] = GroupMember.BACKGROUND;
        for (GroupMember member : members) {
            if (member.isLeader()) {
                return true; // each write is then checked against its own group
            }
        }
        return false;
    }

    // ---- keyless commands: the slots this node serves, pub/sub

    /**
     * The slots of the groups this node leads; leading none, those of the groups led by the node that CLUSTER
     * NODES shows it as a replica of (the leader of its first group with a known leader), as a Redis Cluster
     * replica holds its master's slots.
     */
    @Override
    public ServedSlots servedSlots() {
        List<BitSet> led = groupsLedBy(topology.self().raft());
        if (!led.isEmpty()) {
            return ServedSlots.of(led, true);
        }
        for (GroupMember member : members) {
            String leader = member.replicated().leader().orElse(null);
            if (leader != null && topology.clientAddressOf(leader).isPresent()) {
                return ServedSlots.of(groupsLedBy(leader), false);
            }
        }
        return ServedSlots.of(List.of(), false);
    }

    private List<BitSet> groupsLedBy(String raft) {
        List<BitSet> led = new ArrayList<>();
        for (int g = 0; g < members.length; g++) {
            boolean leads = raft.equals(topology.self().raft()) ? members[g].isLeader()
                    : members[g].replicated().leader().map(raft::equals).orElse(false);
            if (leads) {
                led.add(slotsOfGroup[g]);
            }
        }
        return led;
    }

    @Override
    public void forwardPublish(boolean sharded, byte[] channel, byte[] message, String password) {
        peers.publish(sharded, channel, message, password);
    }

    // ---- the CLUSTER commands and INFO

    @Override
    public ClusterView cluster() {
        List<ClusterView.Shard> shards = new ArrayList<>();
        List<String> memberIds = topology.nodes().stream().map(ClusterTopology.Node::id).toList();
        for (int g = 0; g < members.length; g++) {
            String leader = members[g].replicated().leader()
                    .filter(raft -> topology.clientAddressOf(raft).isPresent())
                    .map(RaftReplica::nodeId).orElse(null);
            shards.add(new ClusterView.Shard(topology.slots().rangesOf(g), leader, memberIds));
        }
        List<ClusterView.Node> nodes = new ArrayList<>();
        for (ClusterTopology.Node n : topology.nodes()) {
            nodes.add(new ClusterView.Node(n.id(), n.clientHost(), n.clientPort(), n.self()));
        }
        return new ClusterView(nodes, shards, topology.slots().epoch());
    }

    @Override
    public Map<String, Object> infoFields() {
        return ClusterInfo.replicationFields(topology, members);
    }

    @Override
    public Map<String, Object> clusterInfo() {
        return ClusterInfo.clusterFields(topology, members, peers.dropped());
    }

    @Override
    public void close() throws IOException {
        balancer.close();
        peers.close();
        IOException failure = null;
        for (GroupMember member : members) {
            try {
                member.replicated().close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "closing " + member.replicated() + " failed", e);
                failure = failure == null ? e : failure;
            }
        }
        try {
            db.flush();
        } finally {
            try {
                db.close();
            } finally {
                process.close();
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
