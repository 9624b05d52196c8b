package io.varve.jmh.harness;

import java.util.Locale;

/**
 * Exact latency percentiles of every operation a single thread times, for benchmarks whose tail is the
 * result. JMH's sample-time mode times only a sample of operations; on this project's 2-core VM it also
 * reports a p99.9 several times higher than a plain loop timing every operation of the same fixed work
 * ({@link HarnessFloorBenchmark} shows both side by side), so latency goals are judged on this record too.
 *
 * <p>Durations are counted in buckets of {@value #RESOLUTION_NANOS} ns up to {@link #MAX_NANOS}; longer ones
 * land in the last bucket and are reported through {@link #max()}. One writer thread; read after it stopped.
 */
public final class LatencyRecorder {

    static final int RESOLUTION_NANOS = 100;
    static final long MAX_NANOS = 1_000_000_000L;

    private final long[] counts = new long[(int) (MAX_NANOS / RESOLUTION_NANOS) + 1];
    private long total;
    private long max;
    private boolean recording;

    /** Starts or stops counting; operations timed while stopped (warm-up) are ignored. */
    public void recording(boolean on) {
        recording = on;
    }

    public void record(long nanos) {
        if (!recording) {
            return;
        }
        counts[(int) Math.min(nanos / RESOLUTION_NANOS, counts.length - 1)]++;
        total++;
        max = Math.max(max, nanos);
    }

    public long count() {
        return total;
    }

    public long max() {
        return max;
    }

    /** The smallest duration, in nanoseconds rounded up to the bucket, that {@code fraction} of operations did not exceed. */
    public long percentile(double fraction) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(fraction * total);
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= Math.max(rank, 1)) {
                return i == counts.length - 1 ? max : (i + 1L) * RESOLUTION_NANOS;
            }
        }
        return max;
    }

    /** One line: {@code [tag] label ops=... p50=... p99=... p99.9=... p99.99=... max=... (us)}. */
    public String summary(String tag, String label) {
        return String.format(Locale.ROOT, "[%s] %s ops=%d p50=%.1f p99=%.1f p99.9=%.1f p99.99=%.1f max=%.1f (us)",
                tag, label, total, percentile(0.50) / 1e3, percentile(0.99) / 1e3, percentile(0.999) / 1e3,
                percentile(0.9999) / 1e3, max / 1e3);
    }
}
