package io.varve.jmh;

import io.varve.jmh.data.DataSize;
import io.varve.jmh.data.Keys;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.util.concurrent.TimeUnit;

/**
 * db_bench's readrandom: point reads of uniformly random existing keys after a fill, flush and full
 * compaction, with the value copied into a reused buffer. Two cache sizes:
 * <ul>
 *   <li>{@code hot}: block cache twice the raw data size plus 64 MiB, so after the warm-up iteration
 *       every block is cached;</li>
 *   <li>{@code small}: 1/32 of the raw data (at least 1 MiB), so most reads miss the block cache and
 *       decompress a block from the OS page cache.</li>
 * </ul>
 * Both are derived from the data size rather than fixed, so the quick profile's small data keeps the same
 * cache-to-data proportions as the full run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReadRandomBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    @Param({"hot", "small"})
    public String cache;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        long raw = DataSize.rawBytes(entries, valueSize);
        long bytes = switch (cache) {
            case "hot" -> 2 * raw + (64L << 20);
            case "small" -> Math.max(1L << 20, raw / 32);
            default -> throw new IllegalArgumentException("cache must be hot or small: " + cache);
        };
        return StoreSettings.defaults().withBlockCacheBytes(bytes);
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
    }

    @Benchmark
    public int readrandom(Worker w) {
        Keys.write(w.random.nextInt(entries), w.key);
        int length = db.get(w.key, w.valueOut);
        if (length < 0) {
            throw new IllegalStateException(store + " lost a loaded key");
        }
        return length;
    }
}
