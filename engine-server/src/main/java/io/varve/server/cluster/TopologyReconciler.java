package io.varve.server.cluster;

import io.varve.replication.ReplicationException;
import io.varve.server.replica.GroupMember;
import io.varve.server.resp.RedisError;

import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Drives the slot change the topology holds, one step at a time, on every node: each node does the steps of
 * the groups it leads (docs/cluster.md, "Moving slots between groups"). The metadata leader judges each phase
 * by its own member's gate, or, for a group it holds no member of (its replica moved away), by asking the
 * group's members ({@code VARVE CLUSTER GATE}).
 *
 * <ol>
 *   <li>{@code FENCING}: the leader of each source group proposes the group's fence entry ({@link SlotGate});
 *       the leader of the metadata group, once every source has applied its fence here, commits the next
 *       state: the target owns the slots ({@code HANDOFF}, epoch + 1).</li>
 *   <li>{@code HANDOFF}: the target's leader proposes its accept entry, which applies on each node once the
 *       sources' fences have applied there; the metadata leader, once the target applied it here, clears the
 *       change (epoch + 1).</li>
 * </ol>
 *
 * Every step is idempotent and checked against applied state (a gate's last change, the topology's epoch),
 * so a step repeated by a new leader or after a lost reply changes nothing; a crashed node's step is done by
 * whoever leads the group next. The reconciler also opens the groups a split created (those this node is a
 * member of), and does this node's steps of a replica move ({@link ReplicaMover}). One thread, woken by
 * every applied topology and gate change and every {@value #PERIOD_MS} ms (leadership and Raft configuration
 * changes are not signalled). {@link #await} lets an operation wait for the state it started to complete.
 */
final class TopologyReconciler implements AutoCloseable {

    static final long PERIOD_MS = 200;
    private static final System.Logger LOG = System.getLogger(TopologyReconciler.class.getName());

    private final ClusterNode node;
    private final ReplicaMover mover;
    /** The nodes' shared {@code requirepass}, sent with requests to other nodes. */
    private final Supplier<String> password;
    private final Object lock = new Object();
    private final Thread thread;
    private boolean woken;
    private volatile boolean running = true;

    TopologyReconciler(ClusterNode node, ReplicaMover mover, Supplier<String> password) {
        this.node = node;
        this.mover = mover;
        this.password = password;
        this.thread = Thread.ofPlatform().daemon().name("varve-topology").unstarted(this::run);
    }

    void start() {
        node.groups().onGateChange(this::wake);
        thread.start();
    }

    void wake() {
        synchronized (lock) {
            woken = true;
            lock.notifyAll();
        }
    }

    /**
     * Waits until the applied topology satisfies {@code done}; false after {@code timeoutMs}. The deadline
     * bounds an operation's reply; the change itself goes on.
     */
    boolean await(Predicate<TopologyState> done, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        synchronized (lock) {
            while (!done.test(node.meta().applied())) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !running) {
                    return false;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    private void run() {
        while (running) {
            synchronized (lock) {
                if (!woken) {
                    try {
                        lock.wait(PERIOD_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                woken = false;
            }
            if (!running) {
                return;
            }
            try {
                step();
            } catch (ReplicationException | io.varve.server.resp.RedisError e) {
                // not the leader any more, a timeout, another change first: the next round looks again
                LOG.log(System.Logger.Level.DEBUG, "topology step: " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "topology step failed", e);
            }
        }
    }

    /** One round of whatever steps this node can do now. */
    void step() throws IOException {
        MetadataGroup meta = node.meta();
        if (meta == null) {
            return;
        }
        TopologyState state = meta.applied();
        ClusterGroups groups = node.groups();
        groups.openHeld(state, node.topology().self().raft());
        mover.step(state);
        TopologyState.Change change = state.change();
        if (change == null) {
            return;
        }
        long id = change.id();
        if (change.phase() == TopologyState.Phase.FENCING) {
            boolean allFenced = true;
            for (int source : change.sources()) {
                GroupMember member = groups.member(source);
                SlotGate gate = groups.gate(source);
                if (gate != null && gate.lastChange() >= id) {
                    continue;
                }
                if (member != null && member.isLeader()) {
                    member.replicated().write(SlotGate.fence(source, id, change.slots()));
                }
                if (gate != null || !meta.isLeader() || lastChangeElsewhere(state, source) < id) {
                    allFenced = false;
                }
            }
            if (allFenced && meta.isLeader()) {
                proposeIfCurrent(meta, state, state.fenced());
            }
        } else {
            int target = change.target();
            GroupMember member = groups.member(target);
            SlotGate gate = groups.gate(target);
            long applied = gate != null ? gate.lastChange()
                    : meta.isLeader() ? lastChangeElsewhere(state, target) : -1;
            if (applied < id) {
                if (member != null && member.isLeader()) {
                    member.replicated().write(SlotGate.accept(target, id, change.slots(), change.sources()));
                }
            } else if (meta.isLeader()) {
                proposeIfCurrent(meta, state, state.handedOff());
            }
        }
    }

    /**
     * The last slot change group {@code g}'s gate has applied on one of its members, asked over
     * {@link PeerRequest} ({@code VARVE CLUSTER GATE}); -1 if none answers. For a metadata leader with no
     * member of g (its replica moved away): a gate applies only committed entries, so any member's answer
     * says the entry is in g's log for good, which is all the next phase needs.
     */
    private long lastChangeElsewhere(TopologyState state, int g) {
        long last = -1;
        for (String member : state.groups().get(g).members()) {
            String address = node.topology().clientAddressOf(member).orElse(null);
            if (address == null) {
                continue;
            }
            try {
                last = Math.max(last, Long.parseLong(PeerRequest.call(address, password.get(),
                        List.of("VARVE", "CLUSTER", "GATE", Integer.toString(g)))));
            } catch (RedisError | NumberFormatException e) {
                LOG.log(System.Logger.Level.DEBUG, "asking " + address + " for group " + g + "'s gate: " + e);
            }
        }
        return last;
    }

    private static void proposeIfCurrent(MetadataGroup meta, TopologyState from, TopologyState next) {
        if (meta.applied() == from) {
            meta.propose(next); // refused if another change applied meanwhile: the next round recomputes
        }
    }

    @Override
    public void close() {
        running = false;
        wake();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
