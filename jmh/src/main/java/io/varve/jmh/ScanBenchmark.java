package io.varve.jmh;

import io.varve.jmh.data.Keys;
import io.varve.jmh.store.KvCursor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * Iteration after a fill, flush and full compaction. Each thread keeps one cursor for the iteration, as
 * db_bench does; key and value of every visited entry are copied out and consumed.
 * <ul>
 *   <li>readseq: full scans, measured per entry: each invocation steps 1000 entries and starts over at the
 *       first key when the scan reaches the end.</li>
 *   <li>seekrandom: seek to a random existing key, then up to 100 nexts (db_bench --seek_nexts=100); one
 *       operation is one seek with its nexts.</li>
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ScanBenchmark extends StoreBenchmark {

    static final int SCAN_CHUNK = 1000;
    static final int SEEK_NEXTS = 100;

    @Param({"100"})
    public int valueSize;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected void afterOpen() {
        loadAndCompact(entries);
    }

    /** A thread's cursor, opened on first use and closed at the end of each iteration. */
    @State(Scope.Thread)
    public static class CursorHolder {
        KvCursor cursor;

        KvCursor cursor(ScanBenchmark b) {
            if (cursor == null) {
                cursor = b.db.cursor();
            }
            return cursor;
        }

        @TearDown(Level.Iteration)
        public void close() {
            if (cursor != null) {
                cursor.close();
                cursor = null;
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(SCAN_CHUNK)
    public void readseq(CursorHolder holder, Worker w, Blackhole bh) {
        KvCursor c = holder.cursor(this);
        for (int i = 0; i < SCAN_CHUNK; i++) {
            if (!c.valid()) {
                c.seekToFirst();
            }
            bh.consume(c.key(w.keyOut));
            bh.consume(c.value(w.valueOut));
            c.next();
        }
    }

    @Benchmark
    public int seekrandom(CursorHolder holder, Worker w, Blackhole bh) {
        KvCursor c = holder.cursor(this);
        Keys.write(w.random.nextInt(entries), w.key);
        c.seek(w.key);
        int n = 0;
        for (; n < SEEK_NEXTS && c.valid(); n++) {
            bh.consume(c.key(w.keyOut));
            bh.consume(c.value(w.valueOut));
            c.next();
        }
        return n;
    }
}
