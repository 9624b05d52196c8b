package io.varve.core.internal.ingest;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.sst.CpuSlice;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableReader;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The file work of an ingestion, all of it done before the ingestion takes a sequence number: bringing each
 * external file into the database directory (hard link, or copy where linking is impossible), making it
 * durable, and checking it completely. Also the memtable check that decides whether a flush must come first.
 */
public final class ExternalTables {

    private static final System.Logger LOG = System.getLogger(ExternalTables.class.getName());
    /** External files up to this size are checked from a copy in memory, larger ones through a mapping. */
    private static final long READ_INTO_MEMORY_LIMIT = 64L << 20;
    private static final int COPY_BUFFER = 1 << 20;

    private ExternalTables() {
    }

    /** Where imported tables go: the directory and the path of table number n in it. */
    public record Destination(Path directory, LongFunction<Path> tablePath, LongSupplier fileNumbers) {
    }

    /**
     * Brings every file into the database directory under a fresh table number and checks it: the file
     * and then the directory are synced, and each table must be an external table (every entry at sequence
     * 0) written for {@code columnFamily}, sound in every block and key order ({@link TableReader#verifyContents}),
     * and the tables must not overlap one another. The checks run on the imported copy (so what is installed is
     * what was checked), but name the caller's file in errors. On any failure the imported files are deleted.
     *
     * @param link hard-link instead of copying; falls back to a copy where the file system cannot link
     * @return the tables, sorted by smallest key
     * @throws java.nio.file.NoSuchFileException for a missing file
     * @throws io.varve.base.CorruptionException for a damaged or unsorted file (naming it and the offset)
     * @throws IllegalArgumentException for a file that is not an external table of this family, for
     *         overlapping files, or for the same file given twice
     */
    public static List<ExternalTable> importAll(FileSystem fs, List<Path> files, String columnFamily,
                                                Destination destination, boolean link) throws IOException {
        Set<Path> distinct = new HashSet<>();
        for (Path file : files) {
            if (!distinct.add(Objects.requireNonNull(file, "file").toAbsolutePath().normalize())) {
                throw new IllegalArgumentException(file + " is given twice");
            }
        }
        List<ExternalTable> imported = new ArrayList<>();
        List<Path> created = new ArrayList<>();
        boolean success = false;
        try {
            for (Path source : files) {
                long number = destination.fileNumbers().getAsLong();
                Path target = destination.tablePath().apply(number);
                bringIn(fs, source, target, link, created);
                imported.add(check(fs, source, target, number, columnFamily));
            }
            imported.sort(Comparator.comparing(ExternalTable::smallestKey, Keys::compare));
            for (int i = 1; i < imported.size(); i++) {
                ExternalTable before = imported.get(i - 1);
                ExternalTable after = imported.get(i);
                if (Keys.compare(before.largestKey(), after.smallestKey()) >= 0) {
                    throw new IllegalArgumentException("external files overlap: " + before.source() + " ends at "
                            + describe(before.largestKey()) + ", " + after.source() + " starts at "
                            + describe(after.smallestKey()) + "; ingest overlapping files in separate calls");
                }
            }
            // The new names must be durable before a manifest record refers to them.
            fs.syncDirectory(destination.directory());
            success = true;
            return imported;
        } finally {
            if (!success) {
                deleteQuietly(fs, created);
            }
        }
    }

    private static void bringIn(FileSystem fs, Path source, Path target, boolean link, List<Path> created)
            throws IOException {
        if (link) {
            try {
                fs.link(source, target);
                created.add(target);
                // The caller may not have synced the file; the database is about to depend on its bytes.
                try (WritableFile file = fs.openForAppend(target)) {
                    file.sync();
                }
                return;
            } catch (UnsupportedOperationException cannotLink) {
                LOG.log(System.Logger.Level.DEBUG, "copying {0}: {1}", source, cannotLink.getMessage());
            }
        }
        try (ReadableFile in = fs.openReadable(source)) {
            created.add(target);
            try (WritableFile out = fs.create(target)) {
                ByteBuffer buffer = ByteBuffer.allocate(COPY_BUFFER);
                long size = in.size();
                for (long position = 0; position < size; ) {
                    buffer.clear().limit((int) Math.min(buffer.capacity(), size - position));
                    in.readFully(buffer, position);
                    buffer.flip();
                    position += buffer.remaining();
                    out.write(buffer);
                }
                out.sync();
            }
        }
    }

    private static ExternalTable check(FileSystem fs, Path source, Path imported, long number, String columnFamily)
            throws IOException {
        // Errors name the caller's file: the offsets are the same in the import.
        // A confined reader: releasing it then costs no pause of the writer threads. Files up to the limit are
        // read rather than mapped, which spares the other threads the mapping's side effects (see openConfined).
        // The check is the longest stretch of CPU in an ingestion: sliced, so that it never keeps a writer that
        // is queued on the same core waiting for long (see CpuSlice).
        CpuSlice slice = new CpuSlice();
        TableReader reader = TableReader.openConfined(fs.openReadable(imported), source, READ_INTO_MEMORY_LIMIT);
        try {
            slice.step();
            TableProperties p = reader.properties();
            if (p.largestSequence() != 0) {
                throw new IllegalArgumentException(source + " is not an external table: it holds sequences up to "
                        + p.largestSequence() + " (write external tables with SstFileWriter)");
            }
            if (p.columnFamily() == null) {
                throw new IllegalArgumentException(source + " names no column family (write external tables with "
                        + "SstFileWriter)");
            }
            if (!p.columnFamily().equals(columnFamily)) {
                throw new IllegalArgumentException(source + " was written for column family '" + p.columnFamily()
                        + "', not '" + columnFamily + "'");
            }
            reader.verifyContents(slice);
            return new ExternalTable(source, number, p.fileSize(), p.smallestUserKey(), p.smallestTrailer(),
                    p.largestUserKey(), p.largestTrailer());
        } finally {
            reader.release();
        }
    }

    /** Deletes the imported copies of tables that were not installed; best effort (the next open deletes leftovers). */
    public static void discard(FileSystem fs, List<ExternalTable> tables, LongFunction<Path> tablePath) {
        deleteQuietly(fs, tables.stream().map(t -> tablePath.apply(t.fileNumber())).toList());
    }

    private static void deleteQuietly(FileSystem fs, List<Path> paths) {
        for (Path path : paths) {
            try {
                fs.delete(path);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not delete " + path + "; the next open removes it", e);
            }
        }
    }

    /**
     * Whether any memtable holds an entry with sequence below {@code below} whose user key lies in one of the
     * tables' ranges. Such an entry would be read before the ingested table (memtables are consulted first)
     * although it is older, so the memtable must be flushed before the ingestion. Entries at or above
     * {@code below} are writes sequenced after the ingestion: rightly newer, they do not count.
     */
    public static boolean anyInMemtables(List<Memtable> memtables, List<ExternalTable> tables, long below) {
        for (Memtable memtable : memtables) {
            try (InternalIterator it = memtable.iterator()) {
                for (ExternalTable table : tables) {
                    MemorySegment largest = MemorySegment.ofArray(table.largestKey());
                    it.seek(MemorySegment.ofArray(table.smallestKey()), InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE));
                    for (; it.valid() && Keys.compare(it.userKey(), largest) <= 0; it.next()) {
                        if (InternalKey.sequence(it.trailer()) < below) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** A key for messages: printable ASCII as text, anything else in hex. */
    static String describe(byte[] key) {
        boolean printable = true;
        for (byte b : key) {
            printable &= b >= 0x20 && b < 0x7F;
        }
        return printable ? "'" + new String(key, StandardCharsets.US_ASCII) + "'"
                : "0x" + HexFormat.of().formatHex(key);
    }
}
