package io.varve.jmh;

import io.varve.jmh.data.DataSize;
import io.varve.jmh.data.Keys;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * 100 random existing keys read as one multiGet versus as 100 gets, after a fill, flush and full compaction,
 * with a block cache holding all the data. Each invocation draws its own keys; both forms draw them the same
 * way, so they differ only in how the lookups are made. Throughput is in batches of 100 keys per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MultiGetBenchmark extends StoreBenchmark {

    private static final int BATCH = 100;

    @Param({"100"})
    public int valueSize;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        return StoreSettings.defaults().withBlockCacheBytes(2 * DataSize.rawBytes(entries, valueSize) + (64L << 20));
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
    }

    private List<byte[]> randomKeys(Worker w) {
        List<byte[]> keys = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            keys.add(Keys.key(w.random.nextInt(entries)));
        }
        return keys;
    }

    @Benchmark
    public int multiGet100(Worker w) {
        List<byte[]> values = db.multiGet(randomKeys(w));
        int bytes = 0;
        for (byte[] value : values) {
            if (value == null) {
                throw new IllegalStateException(store + " lost a loaded key");
            }
            bytes += value.length;
        }
        return bytes;
    }

    @Benchmark
    public int get100(Worker w) {
        int bytes = 0;
        for (byte[] key : randomKeys(w)) {
            int length = db.get(key, w.valueOut);
            if (length < 0) {
                throw new IllegalStateException(store + " lost a loaded key");
            }
            bytes += length;
        }
        return bytes;
    }
}
