package io.varve.jmh;

import io.varve.jmh.data.BenchDirs;
import io.varve.jmh.data.Keys;
import io.varve.jmh.store.StoreSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Checkpoints of a store holding {@link #dataMiB} MiB of raw key-value data (loaded, flushed and compacted
 * once per trial): Varve's {@code Db.checkpoint(target, true)} against RocksDB's
 * {@code Checkpoint.createCheckpoint}, which flushes the memtables first the same way. Varve and RocksDB
 * only: run with {@code -p store=varve,rocksdb}.
 *
 * <ul>
 *   <li>{@code checkpoint}: the time of one checkpoint (a fresh target per invocation, deleted untimed
 *       afterwards), sampled.</li>
 *   <li>{@code checkpointWhileWriting}: one thread takes checkpoints back to back while another overwrites
 *       random loaded keys (unsynced puts); JMH samples every method, so the {@code put} line of the group
 *       gives the writer's p99.9 while checkpoints run.</li>
 *   <li>{@code putAlone}: the same writer without checkpoints, the baseline for that p99.9.</li>
 * </ul>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CheckpointBenchmark extends StoreBenchmark {

    @Param({"100"})
    public int valueSize;

    /** Raw bytes (keys and values) loaded before the trial, in MiB; the tables hold about half (LZ4). */
    @Param({"256"})
    public int dataMiB;

    private int loaded;

    @Override
    protected int valueSize() {
        return valueSize;
    }

    @Override
    protected StoreSettings settings() {
        return StoreSettings.defaults();
    }

    @Override
    protected void afterOpen() {
        loaded = (int) Math.max(1000, ((long) dataMiB << 20) / (Keys.KEY_SIZE + valueSize));
        loadAndCompact(loaded);
    }

    /** A target directory that does not exist yet, removed after each checkpoint outside the timing. */
    @State(Scope.Thread)
    public static class Target {
        Path dir;

        @Setup(Level.Invocation)
        public void choose() {
            Path parent = BenchDirs.fresh("checkpoint");
            dir = parent.resolve("target");
        }

        @TearDown(Level.Invocation)
        public void remove() {
            BenchDirs.delete(dir.getParent());
            dir = null;
        }
    }

    @Benchmark
    public void checkpoint(Target target) {
        db.checkpoint(target.dir);
    }

    @Benchmark
    @Group("checkpointWhileWriting")
    @GroupThreads(1)
    public void checkpoints(Target target) {
        db.checkpoint(target.dir);
    }

    @Benchmark
    @Group("checkpointWhileWriting")
    @GroupThreads(1)
    public void put(Worker w) {
        overwrite(w);
    }

    @Benchmark
    public void putAlone(Worker w) {
        overwrite(w);
    }

    private void overwrite(Worker w) {
        int index = w.random.nextInt(loaded);
        db.put(Keys.key(index), values.get(index), false);
    }
}
