package io.varve.stress;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Whether a kill cycle's workload acknowledged anything, so a cycle cannot pass having tested nothing.
 *
 * <p>The kill campaigns draw their kill moment at random; a workload whose writes hang would be killed on
 * schedule, recover an empty prefix and pass. So when the moment comes and the workload, past its start, has
 * acknowledged nothing, the campaign waits for its first acknowledgement up to a limit meant only to catch a
 * hang ({@link #LIMIT}), and fails the cycle as "no progress" without one. The wait moves such kills just
 * past the first acknowledgement; kills during start and recovery are unaffected, since they are judged
 * before the workload reports itself ready.
 */
public final class Progress {
    /** How long a ready workload may go without its first acknowledgement before the cycle fails. */
    public static final Duration LIMIT = Duration.ofSeconds(60);

    private final CountDownLatch first = new CountDownLatch(1);

    /** A write was acknowledged. Any thread. */
    public void acknowledged() {
        first.countDown();
    }

    /** Waits for the first acknowledgement, at most {@code limit}; whether there was one. */
    public boolean awaitFirst(Duration limit) throws InterruptedException {
        return first.await(limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The failure text for a cycle whose workload acknowledged nothing within {@code limit}. */
    public static String noProgress(Duration limit) {
        return "no progress: the workload was ready but acknowledged no write within " + limit.toSeconds() + " s";
    }
}
