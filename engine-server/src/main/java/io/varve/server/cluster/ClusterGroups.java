package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;
import io.varve.server.command.KeySlot;
import io.varve.server.replica.GroupMember;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * This node's members of the slot groups, indexed by group id, each with its {@link SlotGate}: those the
 * topology had when the node opened, those a split creates later ({@link #open}) and those a replica moves
 * to ({@link #openJoining}); a member whose replica moved away is closed and its data deleted
 * ({@link #retire}). A group opened late is told the keyspace and the applied-changes listener the node was
 * given, so it behaves as the first ones.
 *
 * <p>Thread-safe: the array is replaced whole (copy on write) under this object's lock; readers take the
 * volatile array and may find a group missing (null) while it is being opened.
 */
final class ClusterGroups implements AutoCloseable {

    private static final String UNBLOCKED =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";
    private static final System.Logger LOG = System.getLogger(ClusterGroups.class.getName());

    private final ReplicationProcess process;
    private final Db db;
    private final ReplicatedDbOptions options;
    private final SlotGates gates = new SlotGates();
    private volatile GroupMember[] members = new GroupMember[0];
    private volatile Keyspace keyspace;
    private AppliedChanges changes;

    ClusterGroups(ReplicationProcess process, Db db, ReplicatedDbOptions options) {
        this.process = process;
        this.db = db;
        this.options = options;
    }

    GroupMember[] members() {
        return members;
    }

    /** The member of group {@code g}, or null if this node has not opened it (yet). */
    GroupMember member(int g) {
        GroupMember[] now = members;
        return g >= 0 && g < now.length ? now[g] : null;
    }

    SlotGate gate(int g) {
        return gates.get(g);
    }

    /**
     * Tells the gates which groups the topology names this node a member of ({@link SlotGates#memberHere});
     * call {@link #topologyChanged} whenever that may have changed.
     */
    void memberHere(java.util.function.IntPredicate member) {
        gates.memberHere(member);
    }

    void topologyChanged() {
        gates.wakeWaiters();
    }

    /**
     * Runs {@code listener} (quick, non-blocking) after every gate change, on the changing group's thread.
     * Clients blocked here are told first ({@code UNBLOCKED}, as on a lost leadership): one waiting on a slot
     * its group just fenced would wait for writes that now go to another group.
     */
    void onGateChange(Runnable listener) {
        gates.onChange(() -> {
            Keyspace ks = keyspace;
            if (ks != null) {
                ks.blocking().unblockAll(UNBLOCKED);
            }
            listener.run();
        });
    }

    /**
     * Opens this node's member of group {@code g} (members {@code peers}) unless open, with a gate that accepts
     * the group's seed slots until its own entries say otherwise, and that names what the group's snapshots
     * carry.
     */
    synchronized void open(int g, List<String> peers, int seedGroups) throws IOException {
        if (member(g) != null) {
            return;
        }
        start(g, peers, SlotGate.open(db, g, SlotGate.seed(g, seedGroups), gates));
    }

    /**
     * Opens this node's member of group {@code g} as a replica moving here (docs/cluster.md, "Moving a
     * group's replica"), unless open: with no peers, so it waits for the group's leader to add it, and a gate
     * that accepts nothing until the leader's snapshot is installed.
     */
    synchronized void openJoining(int g) throws IOException {
        if (member(g) != null) {
            return;
        }
        start(g, List.of(), SlotGate.openJoining(db, g, gates));
        LOG.log(System.Logger.Level.INFO, "opened a member of " + ClusterTopology.groupName(g)
                + " here, waiting for its leader: a replica moves to this node");
    }

    private void start(int g, List<String> peers, SlotGate gate) throws IOException {
        ReplicatedDb group;
        try {
            group = ReplicatedDb.openShared(process, ClusterTopology.groupName(g), peers, options, db, gate, gate);
        } catch (IOException | RuntimeException e) {
            gates.unregister(g);
            throw e;
        }
        GroupMember member = new GroupMember(group, barrierName(g));
        if (keyspace != null) {
            attach(member, keyspace);
        }
        if (changes != null) {
            member.onApplied(changes);
        }
        GroupMember[] next = Arrays.copyOf(members, Math.max(members.length, g + 1));
        next[g] = member;
        members = next;
    }

    /**
     * Closes this node's member of group {@code g}, which the topology no longer names it a member of, and
     * deletes what it held: the key ranges of the slots its gate accepts (never those it handed away, which
     * other groups of this node hold now), then its Raft log, snapshots and applied index, then its gate's key.
     * Runs again to completion after a crash midway ({@link #holdsRetired}); nothing if none is left.
     */
    synchronized void retire(int g, int seedGroups) throws IOException {
        String name = ClusterTopology.groupName(g);
        GroupMember member = member(g);
        SlotGateState state;
        if (member != null) {
            GroupMember[] next = members.clone();
            next[g] = null;
            members = next;
            member.replicated().close();
            state = gates.get(g).state();
        } else if (holdsRetired(g)) {
            byte[] stored = db.get(SlotGate.controlKey(g));
            state = stored != null ? SlotGateState.decode(stored) : SlotGateState.seeded(SlotGate.seed(g, seedGroups));
        } else {
            return;
        }
        // The ranges go in one batch with the gate's key saying it accepts nothing any more: after a crash the
        // next attempt reads that and deletes no range again (they may be another group's by then).
        WriteBatch batch = new WriteBatch();
        for (Db.Range range : GroupKeyRanges.of(state.accepted())) {
            batch.deleteRange(range.start(), range.limit());
        }
        batch.delete(KeyEncoding.internalKey(barrierName(g)));
        batch.put(SlotGate.controlKey(g), SlotGateState.seeded(new BitSet(KeySlot.SLOTS)).encode());
        db.write(batch, WriteOptions.DEFAULT);
        db.syncWal(); // each step durable before the next; a flush when the engine runs without its log
        if (changes != null) {
            changes.replaced();
        }
        process.dropShared(name, db);
        db.delete(SlotGate.controlKey(g));
        db.syncWal();
        gates.unregister(g);
        LOG.log(System.Logger.Level.INFO, "closed " + name + " here and deleted the keys of its "
                + state.accepted().cardinality() + " slots: its replica moved to another node");
    }

    private static String barrierName(int g) {
        return "write-barrier/" + ClusterTopology.groupName(g);
    }

    /** Whether this node holds what a member of group {@code g} left, with the member not open. */
    boolean holdsRetired(int g) {
        return member(g) == null && (ReplicationProcess.hasSharedState(ClusterTopology.groupName(g), db)
                || db.get(SlotGate.controlKey(g)) != null);
    }

    /** Opens this node's member of every group of {@code state} that names {@code self} a member. */
    synchronized void openHeld(TopologyState state, String self) throws IOException {
        for (int g = 0; g < state.groups().size(); g++) {
            if (member(g) == null && state.groups().get(g).members().contains(self)) {
                open(g, state.groups().get(g).members(), state.seedGroups());
            }
        }
    }

    synchronized void attach(Keyspace keyspace) {
        this.keyspace = keyspace;
        for (GroupMember member : members) {
            if (member != null) {
                attach(member, keyspace);
            }
        }
    }

    private static void attach(GroupMember member, Keyspace keyspace) {
        member.attach(keyspace);
        // A client blocked on a key of a group this node stops leading waits for writes made elsewhere
        // now: tell it, as Redis does when a master turns replica (clients blocked on other groups'
        // keys are told too and retry, which costs them a round trip).
        member.replicated().onLeadershipLost(() -> keyspace.blocking().unblockAll(UNBLOCKED));
    }

    synchronized void onApplied(AppliedChanges changes) {
        this.changes = changes;
        for (GroupMember member : members) {
            if (member != null) {
                member.onApplied(changes);
            }
        }
    }

    /** Releases any accept entry waiting for another group, then stops every member. */
    @Override
    public synchronized void close() throws IOException {
        gates.close();
        IOException failure = null;
        for (GroupMember member : members) {
            if (member == null) {
                continue;
            }
            try {
                member.replicated().close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "closing " + member.replicated() + " failed", e);
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
