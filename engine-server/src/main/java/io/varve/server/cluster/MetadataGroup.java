package io.varve.server.cluster;

import io.varve.core.Db;
import io.varve.replication.ApplyGate;
import io.varve.replication.ApplyListener;
import io.varve.replication.GroupMembership;
import io.varve.replication.ReplicatedBatch;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicatedDbOptions;
import io.varve.replication.ReplicationProcess;
import io.varve.server.store.KeyEncoding;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The metadata Raft group, {@value #NAME}: every node is a member, on the node's shared log like the slot
 * groups, and its state is one {@link TopologyState} under an internal key of the node's database. A change
 * is proposed as the whole next state, and applies only if its epoch is one above the state's
 * ({@link Gate}): a compare-and-set in log order, so two changes computed from the same state cannot both
 * apply, and the epoch grows by exactly one per change on every member. A refused proposer reads the state
 * again and recomputes.
 *
 * <p>This node serves the state it last applied: {@code onApplied} hears of each one after it is written,
 * on the group's state-machine thread.
 *
 * <p><b>Members.</b> The nodes the cluster was started with are its voters. A node met later (CLUSTER MEET)
 * joins as a <em>learner</em>: it applies every state and so serves the topology, without voting, so the
 * group's quorum stays the founders' whatever the number of nodes (docs/cluster.md, "Adding and removing
 * nodes"). Such a node starts from {@link TopologyState#joining} (epoch 0), and its gate takes the first state
 * the log gives it: that is the first change ever proposed, computed from the seed every founder began with
 * and applied by all of them, so from there every member decides every entry alike.
 */
final class MetadataGroup implements AutoCloseable {

    static final String NAME = "meta";
    static final byte[] KEY = KeyEncoding.internalKey("topology");

    private final ReplicatedDb replicated;
    private final Gate gate;
    private volatile TopologyState applied;

    private MetadataGroup(ReplicatedDb replicated, Gate gate, TopologyState applied) {
        this.replicated = replicated;
        this.gate = gate;
        this.applied = applied;
    }

    /** The state this node's database holds, or {@code seed} if none was ever changed. */
    static TopologyState stored(Db db, TopologyState seed) {
        byte[] stored = db.get(KEY);
        return stored == null ? seed : TopologyState.decode(stored);
    }

    static MetadataGroup open(ReplicationProcess process, List<String> peers, ReplicatedDbOptions options, Db db,
                              TopologyState initial, Consumer<TopologyState> onApplied) throws IOException {
        Gate gate = new Gate(initial);
        ReplicatedDb replicated = ReplicatedDb.openShared(process, NAME, peers, options, db, gate);
        MetadataGroup group = new MetadataGroup(replicated, gate, initial);
        replicated.onApplied(new ApplyListener() {
            @Override
            public void written(String family, byte[] key) {
                if (Arrays.equals(key, KEY)) {
                    TopologyState now = gate.admitted;
                    group.applied = now;
                    onApplied.accept(now);
                }
            }

            @Override
            public void replaced() {
            }
        });
        return group;
    }

    /** The state this node applied last. */
    TopologyState applied() {
        return applied;
    }

    /** The state as of now: every change committed before the call is applied first (a read index). */
    TopologyState current() {
        replicated.awaitReadIndex();
        return applied;
    }

    /**
     * Proposes {@code next}, whose epoch must be one above the state's: returns once applied here.
     *
     * @throws io.varve.replication.EntryRefusedException another change applied first
     * @throws io.varve.replication.NotLeaderException    this node does not lead the group
     */
    void propose(TopologyState next) {
        replicated.write(new ReplicatedBatch().put(KEY, next.encode()));
    }

    boolean isLeader() {
        return replicated.isLeader();
    }

    Optional<String> leader() {
        return replicated.leader();
    }

    ReplicatedDb replicated() {
        return replicated;
    }

    /**
     * Makes the node at Raft address {@code raft} a learner of the group (on the leader); nothing changes if
     * it is one already or a voter.
     */
    void addLearner(String raft) {
        GroupMembership members = replicated.membership();
        if (!members.peers().contains(raft) && !members.learners().contains(raft)) {
            members.addLearner(raft);
        }
    }

    /** Removes the node at {@code raft} from the group, learner or voter (on the leader); nothing if absent. */
    void remove(String raft) {
        GroupMembership members = replicated.membership();
        if (members.learners().contains(raft)) {
            members.removeLearner(raft);
        } else if (members.peers().contains(raft)) {
            members.removePeer(raft);
        }
    }

    @Override
    public void close() throws IOException {
        replicated.close();
    }

    /** Admits a state only with the next epoch; keeps the newest admitted one. */
    private static final class Gate implements ApplyGate {
        private volatile TopologyState admitted;

        Gate(TopologyState initial) {
            this.admitted = initial;
        }

        @Override
        public List<ReplicatedBatch.Op> admit(long index, List<ReplicatedBatch.Op> ops) {
            for (ReplicatedBatch.Op op : ops) {
                if (Arrays.equals(op.key(), KEY)) {
                    TopologyState next;
                    try {
                        next = op.value() == null ? null : TopologyState.decode(op.value());
                    } catch (IllegalArgumentException e) {
                        return null;
                    }
                    boolean first = admitted.waitingToJoin() && next != null && !next.waitingToJoin();
                    if (!first && (next == null || next.epoch() != admitted.epoch() + 1)) {
                        return null;
                    }
                    admitted = next;
                }
            }
            return ops;
        }
    }
}
