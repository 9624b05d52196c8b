package io.varve.server.cluster;

import io.varve.replication.GroupMembership;
import io.varve.replication.ReplicatedBatch;
import io.varve.replication.ReplicatedDb;
import io.varve.server.replica.GroupMember;
import io.varve.server.resp.RedisError;
import io.varve.server.store.KeyEncoding;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * The steps of a replica move ({@link TopologyState.ReplicaMove}: group g's member {@code from} replaced by the
 * node {@code to}), each done by the node concerned, found from applied state only, so that every step can be
 * repeated, and a step a crashed node left undone is done by whoever leads the group next (docs/cluster.md,
 * "Moving a group's replica"):
 *
 * <ol>
 *   <li>{@code to} opens its member of g with no peers and a gate that never held the group
 *       ({@link ClusterGroups#openJoining}): it waits for the leader.</li>
 *   <li>g's leader, finding {@code to} neither a voter nor a learner, and its log starting at the first
 *       entry, snapshots twice with an entry between (jraft truncates the log only up to the snapshot before
 *       the newest), so that {@code to} catches up from a snapshot, then adds {@code to} as a learner. Old
 *       entries replayed on {@code to}, where other groups hold the slots g handed away, would write g's
 *       records from before its fences over theirs. A leader elected later, whose own log was never
 *       truncated, does the same on finding the learner; {@code to}'s gate refuses whatever entries came
 *       first, and {@code to} starts its member afresh ({@link SlotGate#sentLogBeforeSnapshot}).</li>
 *   <li>g's leader, finding {@code to} a learner, asks it for its applied index ({@code VARVE CLUSTER
 *       APPLIED}, 0 until it installed a snapshot, over {@link PeerRequest}) and compares it with its own
 *       commit index read before asking; once {@code to} is within {@link #CATCH_UP_MARGIN} entries of it,
 *       it removes the learner and adds it as a voter (jraft stops the replicator of a learner turned voter
 *       in one step; the voter's catch-up is then short).</li>
 *   <li>g's leader, finding both voters, removes {@code from}; if it is {@code from} itself, it hands its
 *       leadership to {@code to} first and the new leader goes on.</li>
 *   <li>g's leader, finding {@code to} a voter and {@code from} gone, has the metadata leader commit the new
 *       member list ({@code VARVE CLUSTER REPLICA-MOVED}): epoch + 1, the move cleared.</li>
 *   <li>every node, finding itself no longer a member of a group it has a member of (or what one left before
 *       a crash), retires it ({@link ClusterGroups#retire}).</li>
 * </ol>
 *
 * Why the target's applied index and not jraft's replicator state: jraft exposes the replicators' progress to
 * no public API, and what the promotion needs is that the target has applied the snapshot and the log after
 * it, which only the target knows. Runs on the reconciler's thread.
 */
final class ReplicaMover {

    private static final System.Logger LOG = System.getLogger(ReplicaMover.class.getName());
    /**
     * How far behind the leader's commit index a learner may be when it is made a voter: jraft's own catch-up
     * before the joint configuration (its {@code catchupMargin}, 1000 entries by default) closes the rest.
     */
    static final long CATCH_UP_MARGIN = 1000;

    private final ClusterNode node;
    private final Supplier<String> password;
    /** Whether the groups this node left before a restart were looked for (the first round does). */
    private boolean leftoversChecked;

    ReplicaMover(ClusterNode node, Supplier<String> password) {
        this.node = node;
        this.password = password;
    }

    /** One round of whatever move steps this node can do now. */
    void step(TopologyState state) throws IOException {
        String self = node.topology().self().raft();
        ClusterGroups groups = node.groups();
        TopologyState.ReplicaMove move = state.move();
        if (move != null && move.to().equals(self)) {
            SlotGate gate = groups.gate(move.group());
            if (gate != null && gate.sentLogBeforeSnapshot()) {
                LOG.log(System.Logger.Level.WARNING, ClusterTopology.groupName(move.group()) + ": its leader sent "
                        + "this new member the log from its first entry, not a snapshot; starting the member afresh");
                groups.retire(move.group(), state.seedGroups());
            }
            groups.openJoining(move.group());
        }
        retireLeft(state, self, move);
        if (move != null) {
            GroupMember member = groups.member(move.group());
            if (member != null && member.isLeader()) {
                lead(move, member.replicated(), self);
            }
        }
    }

    private void retireLeft(TopologyState state, String self, TopologyState.ReplicaMove move) throws IOException {
        if (state.waitingToJoin()) {
            return;
        }
        ClusterGroups groups = node.groups();
        for (int g = 0; g < state.groups().size(); g++) {
            boolean joining = move != null && move.group() == g && move.to().equals(self);
            if (joining || state.groups().get(g).members().contains(self)) {
                continue;
            }
            if (groups.member(g) != null || (!leftoversChecked && groups.holdsRetired(g))) {
                groups.retire(g, state.seedGroups());
            }
        }
        leftoversChecked = true;
    }

    private void lead(TopologyState.ReplicaMove move, ReplicatedDb group, String self) {
        String to = move.to();
        String from = move.from();
        GroupMembership members = group.membership();
        List<String> peers = members.peers();
        if (!peers.contains(to)) {
            if (!members.learners().contains(to)) {
                if (logFromFirstEntry(group)) {
                    dropLogStart(group);
                }
                members.addLearner(to);
                LOG.log(System.Logger.Level.INFO, group.group() + ": " + to + " added as a learner, from a snapshot");
            } else if (logFromFirstEntry(group)) {
                // A leader elected since the learner was added, whose log was never truncated: the learner may
                // already have been sent entries from the first, and starts afresh (step()) once this is done.
                dropLogStart(group);
                LOG.log(System.Logger.Level.INFO, group.group() + ": log truncated, for learner " + to);
            } else if (caughtUp(move, group)) {
                members.removeLearner(to);
                members.addPeer(to);
                LOG.log(System.Logger.Level.INFO, group.group() + ": " + to + " caught up and is a voter");
            }
            return;
        }
        if (peers.contains(from)) {
            if (from.equals(self)) {
                members.transferLeadershipTo(to);
            } else {
                members.removePeer(from);
                LOG.log(System.Logger.Level.INFO, group.group() + ": " + from + " removed");
            }
            return;
        }
        node.admin().replicaMoved(move.id(), password.get(), false);
    }

    /**
     * Snapshots twice with an entry between: jraft truncates the log only up to the snapshot before the newest,
     * so afterwards the log no longer holds the group's first entry and a member with an empty log is sent a
     * snapshot.
     */
    private static void dropLogStart(ReplicatedDb group) {
        group.snapshot();
        group.write(new ReplicatedBatch().delete(KeyEncoding.internalKey("replica-move/" + group.group())));
        group.snapshot();
    }

    private static boolean logFromFirstEntry(ReplicatedDb group) {
        try {
            return group.firstLogIndex().orElse(1) <= 1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Step 4 on the target: the Raft index its member of {@code group} has applied, or 0 until it installed a
     * snapshot (entries applied before one were refused and say nothing of its copy).
     */
    static long appliedIndex(ClusterGroups groups, int group) {
        GroupMember member = groups.member(group);
        if (member == null) {
            throw new RedisError("ERR this node has no member of group " + group);
        }
        SlotGate gate = groups.gate(group);
        return gate != null && gate.held() ? member.replicated().status().appliedIndex() : 0;
    }

    /**
     * Whether {@code to} has installed a snapshot and applied to within {@link #CATCH_UP_MARGIN} entries of what
     * this leader had committed just before asking it. Waiting for it to apply everything could last as long as
     * writes keep coming faster than it applies them.
     */
    private boolean caughtUp(TopologyState.ReplicaMove move, ReplicatedDb group) {
        long committed = group.status().commitIndex();
        String address = node.topology().clientAddressOf(move.to()).orElse(null);
        if (address == null) {
            return false;
        }
        String applied = PeerRequest.call(address, password.get(),
                List.of("VARVE", "CLUSTER", "APPLIED", Integer.toString(move.group())),
                "ERR node " + address + " did not answer");
        try {
            LOG.log(System.Logger.Level.DEBUG, group.group() + ": learner " + move.to() + " applied " + applied
                    + ", this leader committed " + committed);
            long index = Long.parseLong(applied);
            return index > 0 && index >= committed - CATCH_UP_MARGIN;
        } catch (NumberFormatException e) {
            throw new RedisError("ERR node " + address + " answered " + applied + " for its applied index");
        }
    }
}
