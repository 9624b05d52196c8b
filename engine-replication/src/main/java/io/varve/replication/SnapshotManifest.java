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
 * state is at and either each column family with its table files (a whole database; a family with no files is
 * listed too, so a load recreates empty families) or, for a group sharing its database with others
 * ({@link GroupShare}), each key range of the default family the snapshot carries with its table files, and
 * the group's share state. Tables are in key order and non-overlapping, as {@code TableExport} wrote them.
 *
 * <pre>
 *   magic "VRSM" (4 bytes), version (int: 1 for a whole database, 2 for a share)
 *   applied index (long)
 *   version 1: family count (int), then each: name (modified UTF-8), file count (int), file names (modified UTF-8)
 *   version 2: range count (int), then each: start length (int), start, limit length (int), limit,
 *              file count (int), file names (modified UTF-8);
 *              state length (int), state
 *   CRC32C of everything above (int)
 * </pre>
 *
 * @param families a whole database's families; empty for a share
 * @param parts    a share's ranges, ascending and disjoint, each with its tables; null for a whole database
 * @param state    a share's state; null for a whole database
 */
record SnapshotManifest(long appliedIndex, List<Family> families, List<Part> parts, byte[] state) {
    static final String FILE_NAME = "varve-state";
    private static final int MAGIC = 0x5652534d;
    private static final int WHOLE_DATABASE = 1;
    private static final int SHARE = 2;
    /** Bounds what a damaged count can make the reader allocate. */
    private static final int MAX_ITEMS = 1 << 20;

    record Family(String name, List<String> files) {
        Family {
            files = List.copyOf(files);
        }
    }

    /** One range {@code [start, limit)} of the default family and the tables holding its records. */
    record Part(Db.Range range, List<String> files) {
        Part {
            files = List.copyOf(files);
        }
    }

    SnapshotManifest {
        families = List.copyOf(families);
        parts = parts == null ? null : List.copyOf(parts);
    }

    /** A snapshot of the whole database. */
    SnapshotManifest(long appliedIndex, List<Family> families) {
        this(appliedIndex, families, null, null);
    }

    /** A snapshot of a group's share of a shared database. */
    static SnapshotManifest ofShare(long appliedIndex, List<Part> parts, byte[] state) {
        return new SnapshotManifest(appliedIndex, List.of(), parts, state);
    }

    boolean isShare() {
        return parts != null;
    }

    /** A share's ranges, in order. */
    List<Db.Range> ranges() {
        return parts.stream().map(Part::range).toList();
    }

    /** Writes the manifest into {@code dir} and syncs it. */
    void writeTo(Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(isShare() ? SHARE : WHOLE_DATABASE);
            out.writeLong(appliedIndex);
            if (isShare()) {
                out.writeInt(parts.size());
                for (Part part : parts) {
                    writeBytes(out, part.range().start());
                    writeBytes(out, part.range().limit());
                    writeNames(out, part.files());
                }
                writeBytes(out, state);
            } else {
                out.writeInt(families.size());
                for (Family f : families) {
                    out.writeUTF(f.name());
                    writeNames(out, f.files());
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
            if (version != WHOLE_DATABASE && version != SHARE) {
                throw new IOException(file + " is not a snapshot manifest of version " + WHOLE_DATABASE + " or "
                        + SHARE);
            }
            long applied = in.readLong();
            if (version == SHARE) {
                int partCount = boundedCount(in.readInt(), file);
                List<Part> parts = new ArrayList<>();
                for (int i = 0; i < partCount; i++) {
                    Db.Range range = new Db.Range(readBytes(in, file), readBytes(in, file));
                    parts.add(new Part(range, readNames(in, file)));
                }
                return ofShare(applied, parts, readBytes(in, file));
            }
            int familyCount = boundedCount(in.readInt(), file);
            List<Family> families = new ArrayList<>();
            for (int i = 0; i < familyCount; i++) {
                String name = in.readUTF();
                families.add(new Family(name, readNames(in, file)));
            }
            return new SnapshotManifest(applied, families);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static void writeNames(DataOutputStream out, List<String> names) throws IOException {
        out.writeInt(names.size());
        for (String name : names) {
            out.writeUTF(name);
        }
    }

    private static byte[] readBytes(DataInputStream in, Path file) throws IOException {
        byte[] b = new byte[boundedCount(in.readInt(), file)];
        in.readFully(b);
        return b;
    }

    private static List<String> readNames(DataInputStream in, Path file) throws IOException {
        int count = boundedCount(in.readInt(), file);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(in.readUTF());
        }
        return names;
    }

    private static int boundedCount(int count, Path file) throws IOException {
        if (count < 0 || count > MAX_ITEMS) {
            throw new IOException("snapshot manifest " + file + " has an impossible count " + count);
        }
        return count;
    }
}
