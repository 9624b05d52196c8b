package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.wal.TruncatedRecordException;
import io.varve.core.internal.wal.WalReader;
import io.varve.core.internal.wal.WalWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest: a log of {@link VersionEdit}s in the WAL's record framing, in a file {@code MANIFEST-NNNNNN},
 * and the {@code CURRENT} file naming the live manifest. A new manifest is synced, its name made durable by a
 * directory sync, then CURRENT is replaced atomically (write a temporary
 * file, sync, rename, sync the directory), so a crash leaves either the old or the new manifest current.
 *
 * <p>Each open writes a fresh manifest starting with edits that describe the whole state (one per column family), switches CURRENT
 * to it and deletes the old one, so manifests never grow without bound across restarts.
 */
final class Manifest implements AutoCloseable {

    static final String CURRENT = "CURRENT";
    static final String PREFIX = "MANIFEST-";

    private final long number;
    private final WalWriter writer;

    private Manifest(long number, WalWriter writer) {
        this.number = number;
        this.writer = writer;
    }

    static Path path(Path dir, long number) {
        return dir.resolve(String.format("%s%06d", PREFIX, number));
    }

    /** Creates manifest {@code number} starting with {@code snapshot}, and makes it current. */
    static Manifest create(FileSystem fs, Path dir, long number, List<VersionEdit> snapshot) throws IOException {
        Path path = path(dir, number);
        WritableFile file = fs.create(path);
        WalWriter writer = new WalWriter(file, number);
        try {
            boolean first = true;
            for (VersionEdit edit : snapshot) {
                writer.append(ByteBuffer.wrap(VersionEditFormat.encode(edit, first)));
                first = false;
            }
            writer.sync();
            // The manifest's name must be durable before CURRENT names it: if the directory sync after the
            // rename of CURRENT fails, a crash may keep that rename and lose an unsynced creation.
            fs.syncDirectory(dir);
            setCurrent(fs, dir, path.getFileName().toString());
        } catch (IOException | RuntimeException e) {
            writer.close();
            throw e;
        }
        return new Manifest(number, writer);
    }

    long number() {
        return number;
    }

    /**
     * Appends edits as one record and syncs: once this returns, they survive a crash. One record per append is
     * what lets {@link #read} tell an append whose sync never completed from damage; the writer refuses
     * every append after a failed sync, so only the last record can be unsynced.
     */
    void append(List<VersionEdit> edits) throws IOException {
        writer.append(ByteBuffer.wrap(VersionEditFormat.encodeRecord(edits)));
        writer.sync();
    }

    private static void setCurrent(FileSystem fs, Path dir, String manifestName) throws IOException {
        Path temp = dir.resolve(CURRENT + ".tmp");
        try (WritableFile file = fs.create(temp)) {
            file.write(ByteBuffer.wrap((manifestName + "\n").getBytes(StandardCharsets.UTF_8)));
            file.sync();
        }
        fs.rename(temp, dir.resolve(CURRENT));
        fs.syncDirectory(dir);
    }

    /** The current manifest's number, or -1 for a directory without one (a new database). */
    static long currentNumber(FileSystem fs, Path dir) throws IOException {
        Path current = dir.resolve(CURRENT);
        if (!fs.exists(current)) {
            return -1;
        }
        byte[] content;
        try (ReadableFile file = fs.openReadable(current)) {
            long size = file.size();
            if (size > 256) {
                throw new CorruptionException(current, 0, "CURRENT is " + size + " bytes; expected one manifest name");
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) size);
            file.readFully(buffer, 0);
            content = buffer.array();
        }
        String text = new String(content, StandardCharsets.UTF_8);
        if (!text.startsWith(PREFIX) || !text.endsWith("\n")) {
            throw new CorruptionException(current, 0, "CURRENT does not name a manifest: '" + text.strip() + "'");
        }
        String digits = text.substring(PREFIX.length(), text.length() - 1);
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new CorruptionException(current, PREFIX.length(), "bad manifest number '" + digits + "'");
        }
    }

    /**
     * Reads every edit of a manifest. Each append is one record, written only after the previous one was
     * synced, so only the last record can hold bytes a crash damaged (cut short, or with a page lost inside
     * it). A damaged record after which no record starts is therefore dropped: its sync never completed, it
     * was never acknowledged. Damage followed by a record is a {@link CorruptionException} naming the
     * manifest and the offset, as is a record that does not decode.
     */
    static List<VersionEdit> read(FileSystem fs, Path dir, long number) throws IOException {
        Path path = path(dir, number);
        if (!fs.exists(path)) {
            throw new CorruptionException(dir.resolve(CURRENT), 0, "CURRENT names " + path.getFileName()
                    + ", which does not exist");
        }
        List<VersionEdit> edits = new ArrayList<>();
        try (ReadableFile file = fs.openReadable(path); WalReader reader = new WalReader(file, path, number)) {
            byte[] record;
            while (true) {
                long start = reader.offset();
                try {
                    record = reader.next();
                } catch (TruncatedRecordException torn) {
                    break;
                } catch (CorruptionException damage) {
                    if (reader.recordStartsAfter(damage.offset())) {
                        throw damage;
                    }
                    break;
                }
                if (record == null) {
                    break;
                }
                try {
                    edits.addAll(VersionEditFormat.decodeRecord(record));
                } catch (VersionEditFormat.MalformedEditException e) {
                    throw new CorruptionException(path, start, "manifest edit does not decode: " + e.getMessage());
                }
            }
        }
        if (edits.isEmpty()) {
            throw new CorruptionException(path, 0, "manifest holds no complete edit");
        }
        return edits;
    }

    @Override
    public void close() throws IOException {
        writer.close();
    }
}
