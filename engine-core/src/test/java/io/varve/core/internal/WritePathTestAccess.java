package io.varve.core.internal;

import io.varve.core.Options;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.memtable.Memtable;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongFunction;

/**
 * A commit pipeline over an in-memory directory with the test seams of {@link CommitPipeline.Hooks} filled in:
 * the memtable insert, how writers park, how memtables are allocated. Everything the pipeline hands out is
 * released by {@link #close()}.
 */
final class WritePathTestAccess implements AutoCloseable {

    static final long WRITE_BUFFER = 256 << 10;

    final CommitPipeline pipeline;
    /** Every memtable handed to the database side: the first ones and those a rotation put in place. */
    private final List<Memtable> owned = Collections.synchronizedList(new ArrayList<>());

    private WritePathTestAccess(int families, Executor background, CommitPipeline.Hooks hooks) throws IOException {
        this(new MemFileSystem(), families, background, hooks, false);
    }

    private WritePathTestAccess(FileSystem fs, int families, Executor background, CommitPipeline.Hooks hooks,
                                boolean unordered) throws IOException {
        Path dir = Path.of("/write-path");
        fs.createDirectories(dir);
        List<MemtableSet.FamilyMemtable> initial = new ArrayList<>();
        for (int family = 0; family < families; family++) {
            Memtable first = new Memtable(MemtableSet.capacity(WRITE_BUFFER, 0), dir);
            owned.add(first);
            initial.add(new MemtableSet.FamilyMemtable(family, first, WRITE_BUFFER));
        }
        AtomicLong files = new AtomicLong(2);
        pipeline = new CommitPipeline(fs, dir, Options.defaults().withFileSystem(fs).withWriteBufferSize(WRITE_BUFFER)
                        .withUnorderedWrite(unordered),
                files::getAndIncrement, 0, initial, 1, (rotated, lastSequence, logNumber) -> {
                    for (MemtableSet.Sealed s : rotated) {
                        owned.add(s.fresh());
                    }
                }, background, hooks);
    }

    /** The production pipeline with one column family, over {@code fs}. */
    static WritePathTestAccess over(FileSystem fs) throws IOException {
        return new WritePathTestAccess(fs, 1, Runnable::run, CommitPipeline.Hooks.defaults(Path.of("/write-path")),
                false);
    }

    /** An unordered pipeline ({@code Options.withUnorderedWrite}) whose memtable insert is {@code applier}. */
    static WritePathTestAccess unorderedWithApplier(CommitPipeline.Applier applier) throws IOException {
        CommitPipeline.Hooks defaults = CommitPipeline.Hooks.defaults(Path.of("/write-path"));
        return new WritePathTestAccess(new MemFileSystem(), 1, Runnable::run,
                new CommitPipeline.Hooks(applier, defaults.parker(), defaults.newMemtable()), true);
    }

    static WritePathTestAccess withApplier(CommitPipeline.Applier applier) throws IOException {
        CommitPipeline.Hooks defaults = CommitPipeline.Hooks.defaults(Path.of("/write-path"));
        return new WritePathTestAccess(1, Runnable::run,
                new CommitPipeline.Hooks(applier, defaults.parker(), defaults.newMemtable()));
    }

    static WritePathTestAccess withApplierAndParker(CommitPipeline.Applier applier, CommitQueue.Parker parker)
            throws IOException {
        CommitPipeline.Hooks defaults = CommitPipeline.Hooks.defaults(Path.of("/write-path"));
        return new WritePathTestAccess(1, Runnable::run, new CommitPipeline.Hooks(applier, parker,
                defaults.newMemtable()));
    }

    static WritePathTestAccess withMemtables(int families, Executor background, LongFunction<Memtable> newMemtable)
            throws IOException {
        return new WritePathTestAccess(families, background,
                new CommitPipeline.Hooks(CommitPipeline::apply, CommitQueue.Parker.LOCK_SUPPORT, newMemtable));
    }

    /** The production insert. */
    static void apply(MemorySegment batch, IntFunction<Memtable> memtableFor) {
        CommitPipeline.apply(batch, memtableFor);
    }

    /** Commits one put of {@code key} in each of {@code families}. */
    void put(String key, boolean sync, int... families) {
        WriteBatchBuilder b = new WriteBatchBuilder();
        for (int family : families) {
            b.add(ValueKind.PUT, family, MemorySegment.ofArray(key.getBytes()), MemorySegment.ofArray(new byte[8]));
        }
        pipeline.commit(b.sealed(), b.count(), b.payloadBytes(), sync, b.columnFamilies());
    }

    /** Closes the pipeline (which waits for writes in flight), then frees every memtable it handed out. */
    @Override
    public void close() throws IOException {
        try {
            pipeline.close();
        } finally {
            owned.forEach(Memtable::release);
        }
    }
}
