package io.varve.stress.server;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The well-behaved client's figures in a window the campaign opens and closes: how many requests were answered
 * and how long each took. A request still unanswered when the window closes counts with the time it has waited
 * so far, so a client stalled for the whole window shows a worst latency as long as the window, not none.
 *
 * <p>{@link #judge} compares a window under attack with one measured without an attack in the same run: a
 * ratio against the client's own figures on the same machine, so it holds on a slow or loaded one, where an
 * absolute rate would not.
 */
final class BystanderMeter {
    /**
     * Under attack the client keeps at least this fraction of its answers per second without one. Low, because
     * the attacking threads share the machine's cores with the server and this client (on a loaded two-core
     * machine, other builds running, attacks divided its rate by up to 32); a client the server stalls for
     * the whole attack has none.
     */
    static final int RATE_DIVISOR = 100;
    /** Under attack no request waits longer than this many times the 99th percentile without one... */
    static final int LATENCY_FACTOR = 20;
    /** ...or than this, whichever is longer: a scheduling hiccup on a loaded machine is not starvation. */
    static final long LATENCY_FLOOR_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A baseline with fewer answers says nothing about the client's speed. */
    static final long BASELINE_MINIMUM = 20;

    /** What one window saw. */
    record Window(long answers, long nanos, long p99Nanos, long worstNanos) {
        double perSecond() {
            return answers * 1e9 / Math.max(1, nanos);
        }

        @Override
        public String toString() {
            return String.format("%d answers in %d ms (%.0f/s), p99 %.1f ms, worst %.1f ms", answers,
                    nanos / 1_000_000, perSecond(), p99Nanos / 1e6, worstNanos / 1e6);
        }
    }

    private long[] latencies = new long[1024];
    private int count;
    private long totalAnswers;
    private long windowStart;
    private boolean open;
    /** When the request under way was sent; -1 between requests. */
    private long requestStart = -1;

    synchronized void sent() {
        requestStart = System.nanoTime();
    }

    synchronized void answered() {
        long took = System.nanoTime() - requestStart;
        requestStart = -1;
        totalAnswers++;
        notifyAll();
        if (!open) {
            return;
        }
        if (count == latencies.length) {
            latencies = Arrays.copyOf(latencies, count * 2);
        }
        latencies[count++] = took;
    }

    /** Waits until the client has had {@code answers} answers in all (its connection warmed up); whether it has. */
    synchronized boolean awaitAnswers(long answers, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (totalAnswers < answers) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    synchronized long totalAnswers() {
        return totalAnswers;
    }

    synchronized void begin() {
        count = 0;
        windowStart = System.nanoTime();
        open = true;
    }

    synchronized Window end() {
        long now = System.nanoTime();
        open = false;
        long[] sorted = Arrays.copyOf(latencies, count);
        Arrays.sort(sorted);
        long p99 = count == 0 ? 0 : sorted[Math.min(count - 1, (int) Math.ceil(count * 0.99) - 1)];
        long worst = count == 0 ? 0 : sorted[count - 1];
        if (requestStart >= 0) {
            worst = Math.max(worst, now - requestStart);
        }
        return new Window(count, now - windowStart, p99, worst);
    }

    /** Null if the window under attack is within the bounds of the baseline, else what is wrong with it. */
    static String judge(Window baseline, Window attacked) {
        if (baseline.answers() < BASELINE_MINIMUM) {
            return "without an attack the well-behaved client got only " + baseline.answers() + " answers ("
                    + baseline + "), too few to judge by";
        }
        if (attacked.perSecond() * RATE_DIVISOR < baseline.perSecond()) {
            return "the well-behaved client was starved: " + attacked + " under attack against " + baseline
                    + " without (bound: at least 1/" + RATE_DIVISOR + " of the rate)";
        }
        long latencyBound = Math.max(LATENCY_FLOOR_NANOS, LATENCY_FACTOR * baseline.p99Nanos());
        if (attacked.worstNanos() > latencyBound) {
            return "the well-behaved client waited too long: " + attacked + " under attack against " + baseline
                    + " without (bound: worst at most " + latencyBound / 1_000_000 + " ms, the larger of "
                    + LATENCY_FLOOR_NANOS / 1_000_000 + " ms and " + LATENCY_FACTOR + " x the p99)";
        }
        return null;
    }
}
