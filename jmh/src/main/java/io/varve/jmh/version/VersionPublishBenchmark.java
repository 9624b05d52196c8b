package io.varve.jmh.version;

import io.varve.core.internal.version.RecoveredManifest;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.sst.TableWriter;
import io.varve.core.internal.version.ReadView;
import io.varve.core.internal.version.Reclaimer;
import io.varve.core.internal.version.TableCache;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.VersionEdit;
import io.varve.core.internal.version.VersionSet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import io.varve.jmh.harness.LatencyRecorder;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Seed 000: the latency of "take a read view, then look a key up in a table" while another thread keeps
 * publishing version edits, with 100,000 tables in the version.
 *
 * <ul>
 *   <li>{@code stamped}: Varve's design. The publisher builds the new table lists and writes the manifest
 *       outside any lock readers use; only the pointer swap is under the StampedLock write lock.</li>
 *   <li>{@code globalMutex}: the "before" design (RocksDB's DB mutex around LogAndApply): the publisher
 *       holds one mutex for the whole edit — merging the file lists, writing the manifest, swapping — and
 *       readers take the same mutex to get their view.</li>
 * </ul>
 * Both run the same VersionSet code; the only difference is the mutex wrapped around it; {@code idle}
 * publishes nothing and shows the floor of the machine and harness. Tables are
 * synthetic: one in a hundred is a real (tiny, in-memory) table file, and lookups only target those, so
 * only the version-set work and one real table lookup are measured.
 *
 * <p>The manifest is encoded, framed and "synced" as usual, but its bytes are dropped instead of kept in
 * the heap: at the 100,000+ edits per second a cheap edit allows, an in-heap manifest grows by ~8 MB/s and
 * its copies and promotion caused collector pauses of up to 1.7 s — an artifact of keeping a disk file in
 * memory, not of publishing. {@code editsPerSecond} paces the publisher (0: back to back).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 10)
public class VersionPublishBenchmark {

    private static final Path DIR = Path.of("/bench");

    @Param({"100000"})
    public int tables;

    /** {@code idle}: no publisher at all — the floor this machine and harness give, for reference. */
    @Param({"stamped", "globalMutex", "idle"})
    public String design;

    /** Publisher pace; 0 publishes back to back. */
    @Param({"0"})
    public int editsPerSecond;

    private MemFileSystem fs;
    private Reclaimer reclaimer;
    private TableCache tableCache;
    private VersionSet versions;
    private Memtable memtable;
    private final ReentrantLock globalMutex = new ReentrantLock();
    private MemorySegment[] realKeys;
    private Thread publisher;
    private volatile boolean stop;
    private final AtomicLong published = new AtomicLong();
    private final LatencyRecorder recorder = new LatencyRecorder();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        fs = new MemFileSystem();
        fs.createDirectories(DIR);
        ManifestDroppingFileSystem versionFs = new ManifestDroppingFileSystem(fs);
        reclaimer = new Reclaimer("bench-reclaimer");
        tableCache = new TableCache(fs, VersionPublishBenchmark::tablePath, null);
        VersionEdit initial = new VersionEdit();
        List<MemorySegment> real = new ArrayList<>();
        for (int i = 0; i < tables; i++) {
            byte[] key = String.format("k%09d", i).getBytes();
            long number = i + 1;
            if (i % 100 == 0) {
                initial.add(1, writeTable(number, key));
                real.add(MemorySegment.ofArray(key));
            } else {
                long trailer = InternalKey.trailer(1, ValueKind.PUT);
                initial.add(1, new TableMeta(number, 1000, key, trailer, key, trailer, 1, 1, -1));
            }
        }
        realKeys = real.toArray(new MemorySegment[0]);
        memtable = new Memtable(1 << 20);
        RecoveredManifest nothing = VersionSet.recover(versionFs, DIR);
        versions = VersionSet.open(versionFs, DIR, nothing, initial.logNumber(1), memtable, reclaimer, tableCache,
                VersionPublishBenchmark::tablePath, tables + 10L);
        memtable.release();
        publisher = Thread.ofPlatform().name("publisher").start(design.equals("idle") ? () -> { } : this::publishContinuously);
    }

    private static Path tablePath(long number) {
        return DIR.resolve(number + ".sst");
    }

    private TableMeta writeTable(long number, byte[] key) throws IOException {
        try (WritableFile file = fs.create(tablePath(number))) {
            TableWriter writer = new TableWriter(file, TableOptions.defaults());
            writer.add(MemorySegment.ofArray(key), InternalKey.trailer(1, ValueKind.PUT), MemorySegment.ofArray(new byte[16]));
            TableProperties p = writer.finish();
            return new TableMeta(number, p.fileSize(), key, p.smallestTrailer(), key, p.largestTrailer(), 1, 1, -1);
        }
    }

    /** Adds a table past the end of the key space and removes the one added before: the count stays put. */
    private void publishContinuously() {
        long previous = -1;
        long number = tables + 1_000_000L;
        long interval = editsPerSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / editsPerSecond : 0;
        long due = System.nanoTime();
        try {
            while (!stop) {
                if (interval > 0) {
                    due += interval;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
                byte[] key = String.format("z%012d", number).getBytes();
                long trailer = InternalKey.trailer(1, ValueKind.PUT);
                VersionEdit edit = new VersionEdit().add(1, new TableMeta(number, 1000, key, trailer, key, trailer, 1, 1, -1));
                if (previous > 0) {
                    edit.remove(1, previous);
                }
                if (design.equals("globalMutex")) {
                    globalMutex.lock();
                    try {
                        versions.logAndApply(edit, m -> m);
                    } finally {
                        globalMutex.unlock();
                    }
                } else {
                    versions.logAndApply(edit, m -> m);
                }
                previous = number++;
                published.incrementAndGet();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Setup(Level.Iteration)
    public void startIteration(IterationParams iteration) {
        recorder.recording(iteration.getType() == IterationType.MEASUREMENT);
    }

    /** Timed operation by operation (see {@link LatencyRecorder}); JMH's sample-time figures come alongside. */
    @Benchmark
    public long acquireViewAndGet() throws IOException {
        long start = System.nanoTime();
        long length = lookUp();
        recorder.record(System.nanoTime() - start);
        return length;
    }

    private long lookUp() throws IOException {
        ReadView view;
        if (design.equals("globalMutex")) {
            globalMutex.lock();
            try {
                view = versions.acquire();
            } finally {
                globalMutex.unlock();
            }
        } else {
            view = versions.acquire();
        }
        try {
            MemorySegment key = realKeys[ThreadLocalRandom.current().nextInt(realKeys.length)];
            TableMeta table = view.version().findInSortedLevel(1, key);
            TableReader reader = tableCache.acquire(table);
            try {
                LookupResult result = new LookupResult();
                reader.get(key, Long.MAX_VALUE >>> 8, result);
                return result.valueLength();
            } finally {
                reader.release();
            }
        } finally {
            view.release();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        stop = true;
        publisher.join();
        System.out.printf("%n[%s] edits published during the trial: %d%n", design, published.get());
        System.out.println(recorder.summary("version-latency", "design=" + design + " editsPerSecond=" + editsPerSecond));
        versions.close();
        reclaimer.close();
        tableCache.close();
    }

    /** Manifest files keep only their length: nothing reads them back during the benchmark. */
    private static final class ManifestDroppingFileSystem extends ForwardingFileSystem {

        ManifestDroppingFileSystem(MemFileSystem delegate) {
            super(delegate);
        }

        @Override
        public WritableFile create(Path path) throws IOException {
            if (!path.getFileName().toString().startsWith("MANIFEST-")) {
                return super.create(path);
            }
            return new WritableFile() {
                private long size;

                @Override
                public void write(ByteBuffer source) {
                    size += source.remaining();
                    source.position(source.limit());
                }

                @Override
                public void sync() {
                }

                @Override
                public long size() {
                    return size;
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
