package io.varve.jmh;

import io.varve.jmh.store.WriteStats;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The write benchmarks' secondary results, one value per single-shot iteration: what the engine wrote to disk
 * while the shot ran, per what the benchmark asked it to store. Filled in at the end of the shot (reading a
 * few counters, negligible next to the shot), so compaction still queued then is not in these numbers:
 * {@code l0Files} shows how much was left.
 *
 * <ul>
 *   <li>{@code userMB}: keys plus values put (the same for every engine);</li>
 *   <li>{@code walMB}, {@code flushMB}, {@code compactionMB}: bytes the engine wrote to its log, by flushes,
 *       and by compactions;</li>
 *   <li>{@code writeAmp}: (log + flush + compaction bytes) / user bytes;</li>
 *   <li>{@code stallMs}: time writers spent stopped or slowed down by the engine's write-stall triggers;</li>
 *   <li>{@code l0Files}: level-0 tables when the shot ended.</li>
 * </ul>
 * NaN for an engine that cannot count (LevelDB-java).
 */
@AuxCounters(AuxCounters.Type.EVENTS)
@State(Scope.Thread)
public class WriteCounters {

    private static final double MB = 1e6;

    public double userMB;
    public double walMB;
    public double flushMB;
    public double compactionMB;
    public double writeAmp;
    public double stallMs;
    public double l0Files;

    @Setup(Level.Iteration)
    public void reset() {
        set(Double.NaN, null);
    }

    /** Records a shot that stored {@code userBytes} and made the engine write {@code written} (null: unknown). */
    void record(long userBytes, WriteStats written) {
        set(userBytes / MB, written);
        if (written != null) {
            writeAmp = (double) written.diskBytes() / userBytes;
        }
    }

    private void set(double user, WriteStats written) {
        userMB = user;
        walMB = written == null ? Double.NaN : written.walBytes() / MB;
        flushMB = written == null ? Double.NaN : written.flushBytes() / MB;
        compactionMB = written == null ? Double.NaN : written.compactionBytes() / MB;
        stallMs = written == null ? Double.NaN : written.stallNanos() / 1e6;
        l0Files = written == null ? Double.NaN : written.level0Tables();
        writeAmp = Double.NaN;
    }
}
