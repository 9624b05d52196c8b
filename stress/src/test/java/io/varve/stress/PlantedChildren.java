package io.varve.stress;

import java.util.concurrent.CountDownLatch;

/**
 * Child mains that speak the kill campaigns' line protocol but misbehave on purpose, so the campaigns' verdicts
 * can be shown to fail for the reason they are named.
 */
public final class PlantedChildren {
    private PlantedChildren() {
    }

    /** Reports itself ready, then never writes: a workload whose writes hang. */
    public static final class Stalled {
        public static void main(String[] args) throws InterruptedException {
            System.out.println("READY");
            System.out.flush();
            new CountDownLatch(1).await();
        }
    }

    /** Reports itself ready, then a thread failure, and exits as a failed workload does. */
    public static final class Failing {
        public static void main(String[] args) {
            System.out.println("READY");
            System.out.println("E java.lang.IllegalStateException: planted failure");
            System.out.flush();
            System.exit(1);
        }
    }
}
