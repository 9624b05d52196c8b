package io.varve.core.backup;

import io.varve.base.fs.FileSystem;
import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Writes one column family's live entries in a key range, as of a snapshot, into external tables that
 * {@code ingestExternalFiles} loads into another database: how a Raft snapshot of a region, or a range
 * moved between databases, is shipped (RheaKV snapshots a region the same way). Only values are written:
 * the export is a state, not a history, so deletions and older versions never leave the source.
 */
public final class TableExport {

    /** What an export produced: the table files in key order, and how many entries they hold. */
    public record Result(List<Path> files, long entries) {
    }

    private TableExport() {
    }

    /**
     * Exports the entries of {@code family} with {@code begin <= key < end} (null: unbounded) visible at
     * {@code snapshot} into tables {@code <prefix>-000001.sst}, ... in {@code dir}, starting a new table once
     * a table's keys and values pass {@code targetTableBytes}. Writes no file for an empty range.
     */
    public static Result export(Db db, ColumnFamily family, Snapshot snapshot, byte[] begin, byte[] end,
                                FileSystem fs, Path dir, String prefix, TableOptions options,
                                long targetTableBytes) throws IOException {
        Objects.requireNonNull(snapshot, "snapshot");
        if (targetTableBytes <= 0) {
            throw new IllegalArgumentException("targetTableBytes must be positive: " + targetTableBytes);
        }
        fs.createDirectories(dir);
        ReadOptions read = ReadOptions.at(snapshot).withLowerBound(begin).withUpperBound(end);
        List<Path> files = new ArrayList<>();
        long entries = 0;
        SstFileWriter writer = null;
        long tableBytes = 0;
        try (DbIterator it = db.iterator(read, family)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                if (writer == null) {
                    Path path = dir.resolve(String.format("%s-%06d.sst", prefix, files.size() + 1));
                    writer = new SstFileWriter(fs, path, options, family.name());
                    files.add(path);
                    tableBytes = 0;
                }
                byte[] key = it.key();
                byte[] value = it.value();
                writer.put(key, value);
                entries++;
                tableBytes += key.length + value.length;
                if (tableBytes >= targetTableBytes) {
                    writer.finish();
                    writer = null;
                }
            }
            if (writer != null) {
                writer.finish();
                writer = null;
            }
        } finally {
            if (writer != null) {
                writer.close();
            }
        }
        return new Result(List.copyOf(files), entries);
    }
}
