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
import io.varve.server.command.ClusterOperations;
import io.varve.server.command.ClusterView;
import io.varve.server.command.CommandFlag;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.Connection;
import io.varve.server.command.KeySlot;
import io.varve.server.command.KeySpec;
import io.varve.server.command.MultiState;
import io.varve.server.command.ServedSlots;
import io.varve.server.replica.GroupMember;
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
import java.util.function.Supplier;

/**
 * This server as a node of a cluster (docs/cluster.md): the hash slots are split among several Raft groups
 * ({@link SlotMap}), this node is a member of those the topology names it a member of (every group for the
 * nodes a cluster starts with, none for a node met later, until replicas move: {@link ReplicaMover}), and
 * all of them share the node's one Raft log engine ({@link ReplicationProcess}) and its one engine-core
 * database, where each group applies the keys of its own slots. A command runs on the leader of the group
 * owning its keys' slot; elsewhere it is answered {@code MOVED <slot> <leader>}, as Redis Cluster answers,
 * and cluster clients follow (to the group's preferred leader from a node that does not replicate the
 * group).
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
 * channel is a key: SPUBLISH is redirected to its slot's leader, which hands the message to every other node
 * (the group's members among them); SSUBSCRIBE is accepted on any node, as Redis accepts it on a shard's
 * replicas.
 *
 * <p><b>Topology.</b> The slot map, the groups and their preferred leaders come from the metadata group
 * ({@link MetadataGroup}); this node routes by the state it applied last and opens the groups a split
 * creates ({@link TopologyReconciler}). A command admitted on a group's leader still finds its slot refused
 * if the group's {@link SlotGate} no longer (or not yet) accepts it: {@code TRYAGAIN} while the slot moves.
 *
 * <p><b>Leaders</b> are placed by a {@link LeaderBalancer} on each group's preferred node.
 *
 * <p>Thread-safe: commands run on many threads; each thread's current group is a thread-local, the
 * members keep their own shared state.
 */
public final class ClusterNode implements ReplicaNode, ClusterOperations {

    /** How long a blocking Raft call (a write's commit, a read index) may take before the client is told. */
    private static final long REQUEST_TIMEOUT_MS = 5_000;
    static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
    private static final String UNBLOCKED =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";

    private final ReplicationProcess process;
    private final Db db;
    private final ClusterGroups groups;
    private final String selfRaft;
    private final String selfClient;
    private volatile MetadataGroup meta;
    /** The topology this node serves: the state the metadata group applied here last. */
    private volatile ClusterTopology topology;
    /** The slots of each group (index = group), from {@link #topology}'s slot map. */
    private volatile BitSet[] slotsOfGroup;
    private final LeaderBalancer balancer;
    private final PeerLinks peers;
    private final TopologyReconciler reconciler;
    private final ClusterAdmin admin;
    private final ClusterMembership membership;
    private static final int NONE = -1;
    private static final int EVERY = -2;
    /**
     * The group the command running on this thread was admitted for (-1: none), its admission stamp, the
     * topology epoch it was routed by, its slot, and which groups' snapshot installs {@link #run} holds off:
     * one group (a replica read of it), {@link #EVERY} follower group (a keyless read), or {@link #NONE}.
     */
    private static final ThreadLocal<long[]> CURRENT =
            ThreadLocal.withInitial(() -> new long[] {-1, GroupMember.BACKGROUND, 0, -1, NONE});
    /** The keyless commands that read the keys of the slots this node serves. */
    private static final java.util.Set<String> WALKS_KEYS = java.util.Set.of("scan", "keys", "dbsize", "randomkey",
            "cluster");

    private ClusterNode(ReplicationProcess process, Db db, ClusterGroups groups, TopologyState state,
                        String self, String selfClient, Supplier<String> password) {
        this.process = process;
        this.db = db;
        this.groups = groups;
        this.selfRaft = self;
        this.selfClient = selfClient;
        publish(state);
        this.balancer = new LeaderBalancer(() -> topology, groups::members);
        this.peers = new PeerLinks(topology);
        this.reconciler = new TopologyReconciler(this, new ReplicaMover(this, password), password);
        groups.memberHere(g -> topology.isMember(g, selfRaft));
        this.admin = new ClusterAdmin(this);
        this.membership = new ClusterMembership(this, admin);
    }

    /**
     * Opens the node: the shared Raft log under {@code dir}/raftlog, the database at {@code dir}/db, the
     * metadata group and a member of each slot group of the topology the database holds, or, on the first
     * start, of the {@code groups} groups the start arguments seed, all nodes of {@code settings} being members.
     * A node started to {@code join} a running cluster seeds nothing: it waits, a member of no group, until a
     * node of the cluster meets it (CLUSTER MEET) and the metadata group gives it the topology.
     */
    public static ReplicaNode open(ReplicationSettings settings, int groups, boolean join, Path dir,
                                   Options dbOptions) throws IOException {
        return open(settings, groups, join, dir, dbOptions, () -> null);
    }

    /**
     * {@link #open(ReplicationSettings, int, boolean, Path, Options)} with the {@code requirepass} the nodes
     * share, which this node's own requests to other nodes send (the steps of a replica move).
     */
    public static ReplicaNode open(ReplicationSettings settings, int groups, boolean join, Path dir,
                                   Options dbOptions, Supplier<String> password) throws IOException {
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
        ClusterGroups members = null;
        ClusterNode node = null;
        try {
            db = Db.open(dir.resolve("db"), dbOptions);
            String self = settings.raftAddress();
            String selfClient = settings.clientAddressOf(self).orElseThrow();
            TopologyState state = MetadataGroup.stored(db, join ? TopologyState.joining(self, selfClient)
                    : TopologyState.seed(settings, groups));
            members = new ClusterGroups(process, db, options);
            members.openHeld(state, self);
            node = new ClusterNode(process, db, members, state, self, selfClient, password);
            node.meta = MetadataGroup.open(process, join ? List.of() : settings.raftPeers(), options, db, state,
                    node::publish);
            node.publish(node.meta.applied());
            node.balancer.start();
            node.reconciler.start();
            return node;
        } catch (IOException | RuntimeException e) {
            try {
                if (node != null) {
                    node.reconciler.close();
                    node.balancer.close();
                    if (node.meta != null) {
                        node.meta.close();
                    }
                }
                if (members != null) {
                    members.close();
                }
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (db != null) {
                db.close();
            }
            process.close();
            throw e;
        }
    }

    /** Serves {@code state} from now on: it is the newest the metadata group applied here. */
    private synchronized void publish(TopologyState state) {
        ClusterTopology now = ClusterTopology.of(state, selfRaft, selfClient);
        ClusterTopology before = topology;
        if (before != null && before.slots().epoch() >= now.slots().epoch()) {
            return;
        }
        BitSet[] slots = new BitSet[now.groups()];
        for (int g = 0; g < slots.length; g++) {
            BitSet set = new BitSet(KeySlot.SLOTS);
            now.slots().rangesOf(g).forEach(r -> set.set(r.first(), r.last() + 1));
            slots[g] = set;
        }
        slotsOfGroup = slots;
        topology = now;
        groups.topologyChanged();
        if (reconciler != null) {
            reconciler.wake();
            balancer.wake();
            peers.follow(now);
        }
    }

    ClusterTopology topology() {
        return topology;
    }

    MetadataGroup meta() {
        return meta;
    }

    ClusterGroups groups() {
        return groups;
    }

    LeaderBalancer balancer() {
        return balancer;
    }

    TopologyReconciler reconciler() {
        return reconciler;
    }

    ClusterAdmin admin() {
        return admin;
    }

    @Override
    public Db database() {
        return db;
    }

    /** This node's member of group {@code g}, for tests. */
    ReplicatedDb group(int g) {
        return groups.member(g).replicated();
    }

    @Override
    public void attach(Keyspace keyspace) {
        groups.attach(keyspace);
    }

    @Override
    public void onApplied(AppliedChanges changes) {
        groups.onApplied(changes);
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
        current[4] = NONE;
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
            return null; // every node receives every shard message, so any node may carry its shard channels
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
            current[4] = WALKS_KEYS.contains(name) ? EVERY : NONE;
            return null; // keyless: this node's local state
        }
        boolean tiesTransaction = (tx.active() && !exec) || name.equals("watch");
        if (tiesTransaction && tx.pinnedSlot() >= 0 && tx.pinnedSlot() != slot) {
            return CROSSSLOT;
        }
        ClusterTopology routedBy = topology;
        int group = routedBy.slots().groupOf(slot);
        current[2] = routedBy.slots().epoch();
        current[3] = slot;
        GroupMember member = groups.member(group);
        if (member == null) {
            return notHeld(slot, group, routedBy);
        }
        if (!member.isLeader()) {
            if (!write && connection.replicaReads()) {
                current[4] = group;
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
        if (!groups.gate(group).accepts(slot)) {
            return GroupMember.SLOT_MOVING; // handed away, or not yet taken over (docs/cluster.md)
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

    /**
     * The answer for a slot whose group has no member here: a node waiting to be met knows no cluster; a
     * node that is not a member of the group sends the client to the group's preferred leader (it hears no
     * leader of a group it does not replicate; the balancer puts the leader there, and a node that is not
     * the leader redirects again); a member not opened yet (a group a split just created) says the slot moves.
     */
    private String notHeld(int slot, int group, ClusterTopology routedBy) {
        if (routedBy.groups() == 0) {
            return "CLUSTERDOWN The cluster is down";
        }
        if (!routedBy.isMember(group, selfRaft)) {
            return "MOVED " + slot + " " + routedBy.clientAddressOf(routedBy.preferred().get(group))
                    .orElse(selfClient);
        }
        return GroupMember.SLOT_MOVING;
    }

    private String redirect(int slot, int group) {
        String leader = groups.member(group).replicated().leader().flatMap(topology::clientAddressOf).orElse(null);
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
        int held = (int) current[4];
        current[4] = NONE; // commands run inside this one (EXEC's) are covered by it
        if (held == NONE) {
            command.run();
        } else {
            GroupMember[] members = groups.members();
            runHolding(members, held == EVERY ? 0 : held, held == EVERY ? members.length : held + 1, command);
        }
    }

    /** Runs {@code command} holding off the installs of the follower groups among {@code members[from, to)}. */
    private static void runHolding(GroupMember[] members, int from, int to, Runnable command) {
        if (from >= to || from >= members.length) {
            command.run();
        } else if (members[from] == null || members[from].isLeader()) {
            runHolding(members, from + 1, to, command);
        } else {
            members[from].replicated().readWhileNoSnapshotLoads(() -> {
                runHolding(members, from + 1, to, command);
                return null;
            });
        }
    }

    @Override
    public String refusesWaiting() {
        long[] current = CURRENT.get();
        int group = (int) current[0];
        // A fence applied since admission unblocked the waiters already; this one registered after it.
        return group < 0 || (groups.member(group).isLeader() && groups.gate(group).accepts((int) current[3]))
                ? null : UNBLOCKED;
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
        if (current[0] >= 0 && group != current[0]) {
            // Keys the command did not declare (a script's), or a slot that changed groups since admission.
            throw new RedisError(topology.slots().epoch() == current[2] ? CROSSSLOT : GroupMember.SLOT_MOVING);
        }
        GroupMember member = groups.member(group);
        if (member == null) {
            throw new RedisError(GroupMember.SLOT_MOVING);
        }
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
        if (slot < 0) {
            return false;
        }
        int group = topology.slots().groupOf(slot);
        GroupMember member = groups.member(group);
        return member != null && member.isLeader() && groups.gate(group).accepts(slot);
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
        for (GroupMember member : groups.members()) {
            if (member != null && member.isLeader()) {
                return true; // each write is then checked against its own group
            }
        }
        return false;
    }

    // ---- keyless commands: the slots this node serves, pub/sub

    /** The slots of the groups this node leads, or, leading none, of its master's ({@link ClusterInfo}). */
    @Override
    public ServedSlots servedSlots() {
        return ClusterInfo.servedSlots(topology, groups, slotsOfGroup);
    }

    @Override
    public void forwardPublish(boolean sharded, byte[] channel, byte[] message, String password) {
        peers.publish(sharded, channel, message, password);
    }

    @Override
    public List<ReplicatedDb> raftGroups() {
        List<ReplicatedDb> held = new ArrayList<>();
        MetadataGroup m = meta;
        if (m != null) { // null while the node opens
            held.add(m.replicated());
        }
        for (GroupMember member : groups.members()) {
            if (member != null) {
                held.add(member.replicated());
            }
        }
        return held;
    }

    // ---- the CLUSTER commands and INFO

    @Override
    public ClusterView cluster() {
        return ClusterInfo.view(topology, groups);
    }

    @Override
    public Map<String, Object> infoFields() {
        return ClusterInfo.replicationFields(topology, groups, meta);
    }

    @Override
    public Map<String, Object> clusterInfo() {
        return ClusterInfo.clusterFields(topology, groups, meta, peers.dropped());
    }

    @Override
    public void close() throws IOException {
        reconciler.close();
        balancer.close();
        peers.close();
        IOException failure = null;
        try {
            groups.close();
        } catch (IOException e) {
            failure = e;
        }
        try {
            meta.close();
        } catch (IOException e) {
            failure = failure == null ? e : failure;
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

    // ---- topology operations (docs/operations.md)

    @Override
    public String moveSlots(int first, int last, int group, String password, boolean forwarded) {
        return admin.moveSlots(first, last, group, password, forwarded);
    }

    @Override
    public String split(int group, String password, boolean forwarded) {
        return admin.split(group, password, forwarded);
    }

    @Override
    public String preferLeader(int group, String node, String password, boolean forwarded) {
        return admin.preferLeader(group, node, password, forwarded);
    }

    @Override
    public String moveReplica(int group, String from, String to, String password, boolean forwarded) {
        return admin.moveReplica(group, from, to, password, forwarded);
    }

    @Override
    public String replicaMoved(long id, String password, boolean forwarded) {
        return admin.replicaMoved(id, password, forwarded);
    }

    @Override
    public long appliedIndex(int group) {
        return ReplicaMover.appliedIndex(groups, group);
    }

    @Override
    public long lastSlotChange(int group) {
        SlotGate gate = groups.gate(group);
        if (gate == null) {
            throw new RedisError("ERR this node has no member of group " + group);
        }
        return gate.lastChange();
    }

    @Override
    public String failover(String password) {
        return admin.failover(password);
    }

    @Override
    public String meet(String host, int port, String password, boolean forwarded) {
        return membership.meet(host, port, password, forwarded);
    }

    @Override
    public String forget(String node, String password, boolean forwarded) {
        return membership.forget(node, password, forwarded);
    }

    @Override
    public String joinState() {
        return membership.joinState();
    }
}
