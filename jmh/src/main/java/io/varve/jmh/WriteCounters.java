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
 *
 * <p>JMH sums secondary results over the iterations of a run, so each shot records its share, value / shots:
 * what JMH prints (and writes to JSON) is then the mean per shot, for the ratio and the level-0 count too.
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
        set(Double.NaN, null, 1);
    }

    /**
     * Records a shot that stored {@code userBytes} and made the engine write {@code written} (null: unknown),
     * as one of {@code shots} shots of its phase (warm-up or measurement).
     */
    void record(long userBytes, WriteStats written, int shots) {
        set(userBytes / MB / shots, written, shots);
        if (written != null) {
            writeAmp = (double) written.diskBytes() / userBytes / shots;
        }
    }

    private void set(double user, WriteStats written, int shots) {
        userMB = user;
        walMB = written == null ? Double.NaN : written.walBytes() / MB / shots;
        flushMB = written == null ? Double.NaN : written.flushBytes() / MB / shots;
        compactionMB = written == null ? Double.NaN : written.compactionBytes() / MB / shots;
        stallMs = written == null ? Double.NaN : written.stallNanos() / 1e6 / shots;
        l0Files = written == null ? Double.NaN : (double) written.level0Tables() / shots;
        writeAmp = Double.NaN;
    }
}
