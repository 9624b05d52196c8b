package io.varve.core.sst;

import io.varve.core.internal.sst.InternalKeys;
import io.varve.core.internal.sst.TableFormat;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableReader;
import io.varve.core.internal.sst.TableWriter;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Builds a table file outside the engine, for bulk loading: add keys in strictly increasing order with
 * {@link #put} and {@link #delete}, then {@link #finish()}. The file can later be ingested: the engine gives it
 * a sequence number of its own without rewriting it (every entry here is written at sequence 0, and readers
 * opened with a global sequence present that sequence instead, see {@link TableReader}).
 *
 * <pre>{@code
 * try (SstFileWriter writer = new SstFileWriter(path, TableOptions.defaults())) {
 *     writer.put(key1, value1);
 *     writer.delete(key2);
 *     TableProperties written = writer.finish();
 * }
 * }</pre>
 *
 * Closing without a successful {@link #finish()} deletes the partial file. Not thread-safe.
 *
 * <p>The table records the name of the column family it is written for (property
 * {@link TableFormat#PROP_COLUMN_FAMILY}); ingestion refuses it for any other family, so a file meant for one
 * family cannot silently land in another. The constructors without a name write for the default family.
 */
public final class SstFileWriter implements AutoCloseable {

    private static final long PUT_TRAILER = InternalKey.trailer(0, ValueKind.PUT);
    private static final long DELETE_TRAILER = InternalKey.trailer(0, ValueKind.DELETE);

    /** The name of the column family every database has; the constructors without a name write for it. */
    public static final String DEFAULT_COLUMN_FAMILY = "default";

    private final FileSystem fileSystem;
    private final Path path;
    private final TableWriter writer;
    private byte[] lastKey;
    private boolean finished;
    private boolean closed;

    /** Writes {@code path} on the local disk, for the default column family. */
    public SstFileWriter(Path path, TableOptions options) throws IOException {
        this(DiskFileSystem.INSTANCE, path, options, DEFAULT_COLUMN_FAMILY);
    }

    /** Writes {@code path} on the local disk, for the column family named {@code columnFamily}. */
    public SstFileWriter(Path path, TableOptions options, String columnFamily) throws IOException {
        this(DiskFileSystem.INSTANCE, path, options, columnFamily);
    }

    /** Writes {@code path} on {@code fileSystem}, replacing any existing file, for the default column family. */
    public SstFileWriter(FileSystem fileSystem, Path path, TableOptions options) throws IOException {
        this(fileSystem, path, options, DEFAULT_COLUMN_FAMILY);
    }

    /** Writes {@code path} on {@code fileSystem}, replacing any existing file, for family {@code columnFamily}. */
    public SstFileWriter(FileSystem fileSystem, Path path, TableOptions options, String columnFamily)
            throws IOException {
        this.fileSystem = Objects.requireNonNull(fileSystem, "fileSystem");
        this.path = Objects.requireNonNull(path, "path");
        Objects.requireNonNull(options, "options");
        if (Objects.requireNonNull(columnFamily, "columnFamily").isEmpty()) {
            throw new IllegalArgumentException("a column family name must not be empty");
        }
        this.writer = new TableWriter(fileSystem.create(path), options);
        writer.columnFamily(columnFamily);
    }

    /** Adds {@code key -> value}; keys must strictly increase (unsigned byte order) across puts and deletes. */
    public void put(byte[] key, byte[] value) throws IOException {
        Objects.requireNonNull(value, "value");
        add(key, PUT_TRAILER, value);
    }

    /** Records that {@code key} is deleted: ingesting the file hides older values of it. */
    public void delete(byte[] key) throws IOException {
        add(key, DELETE_TRAILER, new byte[0]);
    }

    private void add(byte[] key, long trailer, byte[] value) throws IOException {
        Objects.requireNonNull(key, "key");
        requireWritable();
        if (lastKey != null && Keys.compare(lastKey, key) >= 0) {
            String problem = Keys.compare(lastKey, key) == 0 ? "is a duplicate of" : "sorts before";
            throw new IllegalArgumentException("keys must be added in strictly increasing order: key '"
                    + InternalKeys.describeBytes(MemorySegment.ofArray(key)) + "' " + problem
                    + " the previous key '" + InternalKeys.describeBytes(MemorySegment.ofArray(lastKey)) + "'");
        }
        writer.add(MemorySegment.ofArray(key), trailer, MemorySegment.ofArray(value));
        lastKey = key.clone();
    }

    /** Entries added so far. */
    public long entryCount() {
        return writer.entryCount();
    }

    /**
     * Completes the table, syncs it and closes it; the parent directory is synced too so the new name is
     * durable. At least one entry is required.
     */
    public TableProperties finish() throws IOException {
        requireWritable();
        TableProperties properties = writer.finish();
        writer.sync();
        writer.close();
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            fileSystem.syncDirectory(parent);
        }
        finished = true;
        return properties;
    }

    /** After {@link #finish()}, does nothing; before it, abandons the table and deletes the partial file. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (!finished) {
            try {
                writer.abandon();
            } finally {
                fileSystem.delete(path);
            }
        }
    }

    private void requireWritable() {
        if (closed || finished) {
            throw new IllegalStateException("SstFileWriter for " + path + " is already "
                    + (finished ? "finished" : "closed"));
        }
    }
}
