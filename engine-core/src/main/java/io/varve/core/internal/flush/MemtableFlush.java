package io.varve.core.internal.flush;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableWriter;
import io.varve.core.internal.version.TableMeta;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.rangedel.RangeTombstone;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Writes the contents of memtables to one table file. Every entry is kept, older versions included: live
 * snapshots may still read them, and dropping what no snapshot needs is compaction's job.
 *
 * <p>Pipelined, the calling thread walks the memtable and builds the blocks; a second thread, started for
 * the flush and joined before it returns (whether it succeeds or fails), compresses, checksums and writes
 * them ({@link TableWriter#pipelined}). About half a flush's CPU goes to each side, so with a core to spare
 * the two overlap; the table is the same either way. The database's flushes and recovery write this way.
 */
public final class MemtableFlush {

    private MemtableFlush() {
    }

    /**
     * Writes {@code memtable} to {@code path}, syncs it, and describes it; null when the memtable is empty
     * (then no file is left behind).
     */
    public static TableMeta write(FileSystem fs, Path path, long fileNumber, Memtable memtable, TableOptions options)
            throws IOException {
        return write(fs, path, fileNumber, memtable, options, file -> file);
    }

    /** As {@link #write(FileSystem, Path, long, Memtable, TableOptions)}, writing through {@code wrap}. */
    public static TableMeta write(FileSystem fs, Path path, long fileNumber, Memtable memtable, TableOptions options,
                                  UnaryOperator<WritableFile> wrap) throws IOException {
        return write(fs, path, fileNumber, memtable, options, wrap, true);
    }

    /**
     * As {@link #write(FileSystem, Path, long, Memtable, TableOptions, UnaryOperator)}; {@code pipelined}
     * false encodes the blocks on the calling thread too (for measuring the difference).
     */
    public static TableMeta write(FileSystem fs, Path path, long fileNumber, Memtable memtable, TableOptions options,
                                  UnaryOperator<WritableFile> wrap, boolean pipelined) throws IOException {
        if (memtable.isEmpty()) {
            return null;
        }
        TableProperties properties;
        List<RangeTombstone> rangeTombstones = memtable.rangeTombstones().fragments();
        try (WritableFile file = wrap.apply(fs.create(path)); InternalIterator it = memtable.iterator()) {
            Path owner = path.getParent() != null ? path.getParent() : path;
            TableWriter writer = pipelined ? TableWriter.pipelined(file, options, owner.toString())
                    : new TableWriter(file, options);
            boolean finished = false;
            try {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    writer.add(it.userKey(), it.trailer(), it.value());
                }
                if (!rangeTombstones.isEmpty()) {
                    if (writer.entryCount() == 0) {
                        // A table needs a point entry; deleting the first fragment's begin at the fragment's
                        // own sequence deletes nothing the fragment does not.
                        RangeTombstone first = rangeTombstones.getFirst();
                        writer.add(MemorySegment.ofArray(first.begin()),
                                InternalKey.trailer(first.sequence(), ValueKind.DELETE), MemorySegment.NULL);
                    }
                    writer.addRangeTombstones(rangeTombstones);
                }
                properties = writer.finish();
                writer.sync();
                finished = true;
            } finally {
                if (!finished) {
                    writer.abandon();
                }
            }
        } catch (IOException | RuntimeException e) {
            try {
                fs.delete(path);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return new TableMeta(fileNumber, properties.fileSize(), properties.smallestUserKey(),
                properties.smallestTrailer(), properties.largestUserKey(), properties.largestTrailer(),
                properties.smallestSequence(), properties.largestSequence(), -1).widenedTo(rangeTombstones);
    }
}
