package io.varve.jmh;

import io.varve.jmh.store.KvCursor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.util.concurrent.TimeUnit;

/**
 * One range deletion of every loaded key, then a full scan across the deleted range: the cost of writing the
 * tombstone plus the cost of skipping what it hides (the scan finds nothing). Each iteration loads and
 * compacts a fresh store, untimed. Varve and RocksDB only (LevelDB-java has no range deletion): run with
 * {@code -p store=varve,rocksdb}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DeleteRangeBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected boolean freshStorePerIteration() {
        return true;
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
    }

    /** Returns the keys the scan still saw (zero), so the scan cannot be optimised away. */
    @Benchmark
    public long deleteRangeThenScan() {
        // Keys start with their index as 8 big-endian bytes: [empty, index of `entries`) covers every key.
        byte[] end = new byte[8];
        long past = entries;
        for (int i = 7; i >= 0; i--) {
            end[i] = (byte) past;
            past >>>= 8;
        }
        db.deleteRange(new byte[0], end);
        long seen = 0;
        try (KvCursor cursor = db.cursor()) {
            for (cursor.seekToFirst(); cursor.valid(); cursor.next()) {
                seen++;
            }
        }
        return seen;
    }
}
