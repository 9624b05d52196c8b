package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;
import io.varve.server.replica.GroupMember;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.Keyspace;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * This node's members of the slot groups, indexed by group id, each with its {@link SlotGate}: those the
 * topology had when the node opened, and those a split creates later ({@link #open}). A group opened late is
 * told the keyspace and the applied-changes listener the node was given, so it behaves as the first ones.
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
        SlotGate gate = SlotGate.open(db, g, SlotGate.seed(g, seedGroups), gates);
        ReplicatedDb group = ReplicatedDb.openShared(process, ClusterTopology.groupName(g), peers, options, db,
                gate, gate);
        GroupMember member = new GroupMember(group, "write-barrier/" + ClusterTopology.groupName(g));
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
