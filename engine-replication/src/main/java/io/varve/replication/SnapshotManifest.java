package io.varve.replication;

import io.varve.base.Checksums;
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
 * state is at, and each column family with its table files (in key order, non-overlapping, as
 * {@code TableExport} wrote them). A family with no files is listed too, so a load recreates empty families.
 *
 * <pre>
 *   magic "VRSM" (4 bytes), version (int, 1)
 *   applied index (long)
 *   family count (int), then each: name (modified UTF-8), file count (int), file names (modified UTF-8)
 *   CRC32C of everything above (int)
 * </pre>
 */
record SnapshotManifest(long appliedIndex, List<Family> families) {
    static final String FILE_NAME = "varve-state";
    private static final int MAGIC = 0x5652534d;
    private static final int VERSION = 1;
    /** Bounds what a damaged count can make the reader allocate. */
    private static final int MAX_ITEMS = 1 << 20;

    record Family(String name, List<String> files) {
        Family {
            files = List.copyOf(files);
        }
    }

    SnapshotManifest {
        families = List.copyOf(families);
    }

    /** Writes the manifest into {@code dir} and syncs it. */
    void writeTo(Path dir) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(appliedIndex);
            out.writeInt(families.size());
            for (Family f : families) {
                out.writeUTF(f.name());
                out.writeInt(f.files().size());
                for (String file : f.files()) {
                    out.writeUTF(file);
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
            if (in.readInt() != MAGIC || in.readInt() != VERSION) {
                throw new IOException(file + " is not a version " + VERSION + " snapshot manifest");
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
            return new SnapshotManifest(applied, families);
        }
    }

    private static int boundedCount(int count, Path file) throws IOException {
        if (count < 0 || count > MAX_ITEMS) {
            throw new IOException("snapshot manifest " + file + " has an impossible count " + count);
        }
        return count;
    }
}
