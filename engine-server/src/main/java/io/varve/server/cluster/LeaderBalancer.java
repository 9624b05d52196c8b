package io.varve.server.cluster;

import io.varve.server.replica.GroupMember;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Spreads the groups' leaders over the nodes: every {@value #PERIOD_MS} ms, for each group this node leads
 * that prefers another node ({@link ClusterTopology#preferredLeader}), it hands leadership over if the leader
 * heard from that node lately (a node that is down would only make the transfer stall writes for an
 * election timeout). After a start every group's first leader is whoever won the election; after a node
 * returns, the groups it prefers move back to it. A transfer pauses the group's writes until the new leader
 * is elected (jraft refuses proposals meanwhile; clients get TRYAGAIN or follow the MOVED that comes after),
 * so a group is not tried again for {@value #RETRY_MS} ms.
 *
 * <p>One scheduler thread of its own; {@link #close} stops it.
 */
final class LeaderBalancer implements AutoCloseable {

    static final long PERIOD_MS = 1_000;
    static final long RETRY_MS = 10_000;
    private static final System.Logger LOG = System.getLogger(LeaderBalancer.class.getName());

    private final ClusterTopology topology;
    private final GroupMember[] members;
    private final long[] lastTried;
    private final ScheduledExecutorService scheduler;

    LeaderBalancer(ClusterTopology topology, GroupMember[] members) {
        this.topology = topology;
        this.members = members;
        this.lastTried = new long[members.length];
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-leader-balancer");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        scheduler.scheduleWithFixedDelay(this::balance, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /** One round: returns how many transfers it started. */
    int balance() {
        int started = 0;
        try {
            String self = topology.self().raft();
            long now = System.nanoTime();
            for (int g = 0; g < members.length; g++) {
                String preferred = topology.preferredLeader(g).raft();
                boolean triedLately = lastTried[g] != 0
                        && now - lastTried[g] < TimeUnit.MILLISECONDS.toNanos(RETRY_MS);
                if (preferred.equals(self) || !members[g].isLeader() || triedLately) {
                    continue;
                }
                if (members[g].replicated().alivePeers().contains(preferred)) {
                    lastTried[g] = now;
                    if (members[g].replicated().transferLeadershipTo(preferred)) {
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
