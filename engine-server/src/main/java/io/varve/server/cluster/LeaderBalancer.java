package io.varve.server.cluster;

import io.varve.server.replica.GroupMember;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Puts each group's leader on the node the replicated topology prefers for it
 * ({@link ClusterTopology#preferredLeader}: spread evenly at the start, changed on request by {@code VARVE
 * CLUSTER LEADER} and {@code CLUSTER FAILOVER}): every {@value #PERIOD_MS} ms, for each group this node leads
 * that prefers another node, it hands leadership over if the leader heard from that node lately (a node that is down would only make the transfer stall writes for an
 * election timeout). After a start every group's first leader is whoever won the election; after a node
 * returns, the groups it prefers move back to it. A transfer pauses the group's writes until the new leader
 * is elected (jraft refuses proposals meanwhile; clients get TRYAGAIN or follow the MOVED that comes after),
 * so a group is not tried again for {@value #RETRY_MS} ms unless its preferred node changes. Every node reads
 * the same preference from the topology, so no two nodes pull a group in different directions.
 *
 * <p>One scheduler thread of its own; {@link #close} stops it.
 */
final class LeaderBalancer implements AutoCloseable {

    static final long PERIOD_MS = 1_000;
    static final long RETRY_MS = 10_000;
    private static final System.Logger LOG = System.getLogger(LeaderBalancer.class.getName());

    private final Supplier<ClusterTopology> topology;
    private final Supplier<GroupMember[]> members;
    /** Per group: when a transfer was last started, and to which node (the scheduler thread's own). */
    private final Map<Integer, Long> lastTried = new HashMap<>();
    private final Map<Integer, String> triedFor = new HashMap<>();
    private final ScheduledExecutorService scheduler;

    LeaderBalancer(Supplier<ClusterTopology> topology, Supplier<GroupMember[]> members) {
        this.topology = topology;
        this.members = members;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-leader-balancer");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        scheduler.scheduleWithFixedDelay(this::balance, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /** Runs a round soon, instead of at the next period: a preference just changed. */
    void wake() {
        try {
            scheduler.execute(this::balance);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closing: nothing to balance
        }
    }

    /** One round: returns how many transfers it started. */
    synchronized int balance() {
        int started = 0;
        try {
            ClusterTopology shape = topology.get();
            GroupMember[] groups = members.get();
            String self = shape.self().raft();
            long now = System.nanoTime();
            for (int g = 0; g < Math.min(groups.length, shape.groups()); g++) {
                GroupMember member = groups[g];
                String preferred = shape.preferredLeader(g).raft();
                Long tried = lastTried.get(g);
                boolean triedLately = tried != null && preferred.equals(triedFor.get(g))
                        && now - tried < TimeUnit.MILLISECONDS.toNanos(RETRY_MS);
                if (member == null || preferred.equals(self) || !member.isLeader() || triedLately) {
                    continue;
                }
                if (member.replicated().membership().alivePeers().contains(preferred)) {
                    lastTried.put(g, now);
                    triedFor.put(g, preferred);
                    if (member.replicated().membership().transferLeadershipTo(preferred)) {
                        started++;
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "balancing leaders failed", e);
        }
        return started;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
