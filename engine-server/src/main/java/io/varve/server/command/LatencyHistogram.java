package io.varve.server.command;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-command latency distribution for LATENCY HISTOGRAM, by full command name ({@code client|id} for a
 * subcommand): calls and a count per power-of-two bucket of microseconds, as Redis reports it. Any thread.
 */
public final class LatencyHistogram {

    /** Buckets 2^0 .. 2^39 microseconds (about 6 days); slower calls count in the last one. */
    private static final int BUCKETS = 40;

    private final ConcurrentHashMap<String, LongAdder[]> byCommand = new ConcurrentHashMap<>();

    void record(String command, long nanos) {
        long micros = Math.max(1, nanos / 1000);
        int bucket = Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(micros - 1));
        byCommand.computeIfAbsent(command, n -> newBuckets())[bucket].increment();
    }

    private static LongAdder[] newBuckets() {
        LongAdder[] buckets = new LongAdder[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            buckets[i] = new LongAdder();
        }
        return buckets;
    }

    /** CONFIG RESETSTAT. */
    public void reset() {
        byCommand.clear();
    }

    /** The commands with calls, by name. */
    Map<String, long[]> snapshot() {
        Map<String, long[]> out = new TreeMap<>();
        byCommand.forEach((name, buckets) -> {
            long[] counts = new long[BUCKETS];
            long calls = 0;
            for (int i = 0; i < BUCKETS; i++) {
                counts[i] = buckets[i].sum();
                calls += counts[i];
            }
            if (calls > 0) {
                out.put(name, counts);
            }
        });
        return out;
    }

    static long bucketMicros(int bucket) {
        return 1L << bucket;
    }
}
