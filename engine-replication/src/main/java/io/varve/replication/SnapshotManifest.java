package io.varve.replication;

import io.varve.base.Checksums;
import io.varve.core.Db;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The small file in every state-machine snapshot that says what the tables are: the applied Raft index the
 * state is at, each column family with its table files (in key order, non-overlapping, as
 * {@code TableExport} wrote them), and, for a group sharing its database with others, the key ranges of the
 * default family the state covers (what installing it replaces). A family with no files is listed too, so a
 * load recreates empty families.
 *
 * <pre>
 *   magic "VRSM" (4 bytes), version (int: 1 for a whole database, 2 with ranges)
 *   applied index (long)
 *   family count (int), then each: name (modified UTF-8), file count (int), file names (modified UTF-8)
 *   version 2: range count (int), then each: start length (int), start, limit length (int), limit
 *   CRC32C of everything above (int)
 * </pre>
 *
 * @param ranges the ranges {@code [start, limit)} of the default family the snapshot covers, ascending and
 *               disjoint; null when it covers the whole database
 */
record SnapshotManifest(long appliedIndex, List<Family> families, List<Db.Range> ranges) {
    static final String FILE_NAME = "varve-state";
    private static final int MAGIC = 0x5652534d;
    private static final int WHOLE_DATABASE = 1;
    private static final int RANGES = 2;
    /** Bounds what a damaged count can make the reader allocate. */
    private static final int MAX_ITEMS = 1 << 20;

    record Family(String name, List<String> files) {
        Family {
            files = List.copyOf(files);
        }
    }

    SnapshotManifest {
        families = List.copyOf(families);
        ranges = ranges == null ? null : List.copyOf(ranges);
    }

    /** A snapshot of the whole database. */
    SnapshotManifest(long appliedIndex, List<Family> families) {
        this(appliedIndex, families, null);
    }

    /** Writes the manifest into {@code dir} and syncs it. */
    void writeTo(Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(ranges == null ? WHOLE_DATABASE : RANGES);
            out.writeLong(appliedIndex);
            out.writeInt(families.size());
            for (Family f : families) {
                out.writeUTF(f.name());
                out.writeInt(f.files().size());
                for (String file : f.files()) {
                    out.writeUTF(file);
                }
            }
            if (ranges != null) {
                out.writeInt(ranges.size());
                for (Db.Range range : ranges) {
                    out.writeInt(range.start().length);
                    out.write(range.start());
                    out.writeInt(range.limit().length);
                    out.write(range.limit());
                }
            }
        }
        byte[] body = bytes.toByteArray();
        ByteBuffer buffer = ByteBuffer.allocate(body.length + Integer.BYTES);
        buffer.put(body).putInt(Checksums.crc32c(body, 0, body.length)).flip();
        try (FileChannel channel = FileChannel.open(dir.resolve(FILE_NAME), StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    static SnapshotManifest readFrom(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        byte[] all = Files.readAllBytes(file);
        if (all.length < 4 * Integer.BYTES + Long.BYTES) {
            throw new IOException("snapshot manifest " + file + " is truncated (" + all.length + " bytes)");
        }
        int bodyLength = all.length - Integer.BYTES;
        int stored = ByteBuffer.wrap(all, bodyLength, Integer.BYTES).getInt();
        if (stored != Checksums.crc32c(all, 0, bodyLength)) {
            throw new IOException("snapshot manifest " + file + " fails its checksum");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(all, 0, bodyLength))) {
            int version = in.readInt() == MAGIC ? in.readInt() : -1;
            if (version != WHOLE_DATABASE && version != RANGES) {
                throw new IOException(file + " is not a snapshot manifest of version " + WHOLE_DATABASE + " or "
                        + RANGES);
            }
            long applied = in.readLong();
            int familyCount = boundedCount(in.readInt(), file);
            List<Family> families = new ArrayList<>();
            for (int i = 0; i < familyCount; i++) {
                String name = in.readUTF();
                int fileCount = boundedCount(in.readInt(), file);
                List<String> files = new ArrayList<>();
                for (int j = 0; j < fileCount; j++) {
                    files.add(in.readUTF());
                }
                families.add(new Family(name, files));
            }
            if (version == WHOLE_DATABASE) {
                return new SnapshotManifest(applied, families);
            }
            int rangeCount = boundedCount(in.readInt(), file);
            List<Db.Range> ranges = new ArrayList<>();
            for (int i = 0; i < rangeCount; i++) {
                ranges.add(new Db.Range(readBytes(in, file), readBytes(in, file)));
            }
            return new SnapshotManifest(applied, families, ranges);
        }
    }

    private static byte[] readBytes(DataInputStream in, Path file) throws IOException {
        byte[] b = new byte[boundedCount(in.readInt(), file)];
        in.readFully(b);
        return b;
    }

    private static int boundedCount(int count, Path file) throws IOException {
        if (count < 0 || count > MAX_ITEMS) {
            throw new IOException("snapshot manifest " + file + " has an impossible count " + count);
        }
        return count;
    }
}
