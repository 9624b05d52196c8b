package io.varve.stress.cluster;

import io.varve.stress.Progress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * What one cycle of the cluster campaign requires of the workload's acknowledgements, as latches the
 * campaign waits on: a first one before the kill ({@link Progress}); while the killed node is down, some on
 * the groups it led (they failed over) and some on the other groups (bystanders went on); some after it
 * returned. Workers report every acknowledged write's slot ({@link #accept}).
 */
final class CycleGates implements IntConsumer {
    final Progress first = new Progress();
    private final int[] groupOfSlot;
    private final CountDownLatch failover = new CountDownLatch(ClusterKillCampaign.MIN_DURING_OUTAGE);
    private final CountDownLatch bystanders = new CountDownLatch(ClusterKillCampaign.MIN_DURING_OUTAGE);
    private final CountDownLatch afterReturn = new CountDownLatch(ClusterKillCampaign.MIN_DURING_OUTAGE);
    private final AtomicLong failoverAcks = new AtomicLong();
    private final AtomicLong bystanderAcks = new AtomicLong();
    private volatile boolean[] victimGroups = new boolean[0];
    /** 0 before the kill, 1 from the moment the killed node is gone until it is back, 2 after. */
    private volatile int phase;

    CycleGates(int[] groupOfSlot) {
        this.groupOfSlot = groupOfSlot;
    }

    @Override
    public void accept(int slot) {
        first.acknowledged();
        switch (phase) {
            case 1 -> {
                boolean[] victim = victimGroups;
                int g = groupOfSlot[slot];
                if (g < victim.length && victim[g]) {
                    failoverAcks.incrementAndGet();
                    failover.countDown();
                } else {
                    bystanderAcks.incrementAndGet();
                    bystanders.countDown();
                }
            }
            case 2 -> afterReturn.countDown();
            default -> { }
        }
    }

    /** The groups the node about to be killed leads. */
    void outage(boolean[] groupsOfVictim) {
        victimGroups = groupsOfVictim.clone();
    }

    /** The node is gone: any acknowledgement from now on came from another node. */
    void killed() {
        phase = 1;
    }

    void returned() {
        phase = 2;
    }

    /** Null when the killed node's groups failed over and the others went on, each within {@code limit}. */
    String awaitOutageProgress(Duration limit) throws InterruptedException {
        boolean ledAny = false;
        boolean ledAll = victimGroups.length > 0;
        for (boolean led : victimGroups) {
            ledAny |= led;
            ledAll &= led;
        }
        if (ledAll) {
            return "no bystander group: the killed node led all " + victimGroups.length + " groups, so no write "
                    + "could show the others going on (the cycle began before the leaders were spread)";
        }
        if (ledAny && !failover.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            return "no failover: fewer than " + ClusterKillCampaign.MIN_DURING_OUTAGE + " writes to the killed "
                    + "node's groups acknowledged within " + limit.toSeconds() + " s of the kill";
        }
        if (!bystanders.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            return "no bystander progress: fewer than " + ClusterKillCampaign.MIN_DURING_OUTAGE + " writes to the "
                    + "other groups acknowledged within " + limit.toSeconds() + " s of the kill";
        }
        return null;
    }

    boolean awaitAfterReturn(Duration limit) throws InterruptedException {
        return afterReturn.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    long failoverAcks() {
        return failoverAcks.get();
    }

    long bystanderAcks() {
        return bystanderAcks.get();
    }
}
