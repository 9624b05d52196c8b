package io.varve.core.internal.ingest;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.Keys;
import io.varve.core.internal.version.TableMeta;

import java.nio.file.Path;

/**
 * An external table checked for ingestion and imported into the database directory as table
 * {@code fileNumber}: what placement and the manifest need. Keys are user keys; trailers are as stored
 * (sequence 0). Immutable; the key arrays are not copied by the accessors and must not be changed.
 */
public record ExternalTable(Path source, long fileNumber, long fileSize, byte[] smallestKey, long smallestTrailer,
                            byte[] largestKey, long largestTrailer) {

    /** True when the table's user-key range intersects {@code [smallest, largest]}. */
    public boolean overlaps(byte[] smallest, byte[] largest) {
        return Keys.compare(smallestKey, largest) <= 0 && Keys.compare(smallest, largestKey) <= 0;
    }

    public boolean overlaps(TableMeta table) {
        return overlaps(table.smallestKey(), table.largestKey());
    }

    /**
     * The table as a version lists it once ingested at {@code sequence}: the global sequence makes readers
     * present every entry at that sequence; the trailers are given as readers see them, the stored sequence
     * range (0..0) as the file holds it.
     */
    public TableMeta toMeta(long sequence) {
        return new TableMeta(fileNumber, fileSize, smallestKey, present(smallestTrailer, sequence), largestKey,
                present(largestTrailer, sequence), 0, 0, sequence);
    }

    private static long present(long storedTrailer, long sequence) {
        return (sequence << 8) | InternalKey.kindCode(storedTrailer);
    }

    @Override
    public String toString() {
        return source + " as table " + fileNumber + " (" + fileSize + " B)";
    }
}
