package io.varve.core.internal.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * Count and total time of one kind of background work (e.g. flushes), for meters to read. Adders rather than
 * a lock or an atomic pair: the two sums may be read a moment apart, which a rate computed over minutes does
 * not notice.
 */
public final class WorkTimer {

    private final LongAdder count = new LongAdder();
    private final LongAdder nanos = new LongAdder();

    /** The start mark to pass to {@link #stop(long)}. */
    public long start() {
        return System.nanoTime();
    }

    /** Counts one finished piece of work that started at {@code startMark}. */
    public void stop(long startMark) {
        nanos.add(System.nanoTime() - startMark);
        count.increment();
    }

    public long count() {
        return count.sum();
    }

    public long totalNanos() {
        return nanos.sum();
    }
}
