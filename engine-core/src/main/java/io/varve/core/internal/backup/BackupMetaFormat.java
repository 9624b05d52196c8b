package io.varve.core.internal.backup;

import io.varve.base.Checksums;
import io.varve.base.CorruptionException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of a backup's meta file, {@code meta/<id>}: which files make up the backup and the size and
 * checksum of each. {@code docs/formats.md} (section "Backup meta file") describes the same layout; the two
 * must agree. All integers are little-endian.
 *
 * <pre>
 *   offset  size  field
 *   0       4     magic "VBK1" (0x314B4256 read as u32 LE)
 *   4       1     format version (1)
 *   5       8     backup id
 *   13      8     creation time, Unix epoch milliseconds
 *   21      4     file count n
 *   25      ...   n file entries:
 *                   1   kind: 0 = table kept under shared/, 1 = file kept under private/&lt;id&gt;/
 *                   2   name length k
 *                   k   the file's name in the database directory (UTF-8)
 *                   8   size in bytes
 *                   4   CRC32C of the file's bytes, masked
 *   end-4   4     CRC32C of every byte before it, masked
 * </pre>
 *
 * A meta file is written under a temporary name, synced and renamed into place, so a backup is valid exactly
 * when its meta file exists and decodes; the files it names are written and synced before it.
 */
public final class BackupMetaFormat {

    static final int MAGIC = 0x314B4256;
    static final byte VERSION = 1;
    static final int HEADER_SIZE = 25;
    static final int CHECKSUM_SIZE = 4;
    static final byte KIND_SHARED = 0;
    static final byte KIND_PRIVATE = 1;
    /** File names in a database directory are short; a longer one means damage. */
    static final int MAX_NAME_LENGTH = 255;

    /** One file of a backup. {@code crc} is the unmasked CRC32C of its bytes. */
    public record FileEntry(boolean shared, String name, long size, int crc) {
    }

    /** A decoded meta file. */
    public record Meta(long id, long createdMillis, List<FileEntry> files) {
        public long totalBytes() {
            return files.stream().mapToLong(FileEntry::size).sum();
        }
    }

    private BackupMetaFormat() {
    }

    /**
     * Whether {@code name} is a plain file name: letters, digits, '.', '-' and '_', and not a path step. A
     * restore creates files by these names, so a damaged meta file must not name one outside the target.
     */
    static boolean isPlainName(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '-' || c == '_';
            if (!plain) {
                return false;
            }
        }
        return true;
    }

    public static byte[] encode(Meta meta) {
        int size = HEADER_SIZE + CHECKSUM_SIZE;
        List<byte[]> names = new ArrayList<>();
        for (FileEntry file : meta.files()) {
            byte[] name = file.name().getBytes(StandardCharsets.UTF_8);
            if (name.length > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException("file name too long for a backup: " + file.name());
            }
            names.add(name);
            size += 1 + 2 + name.length + 8 + 4;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC).put(VERSION).putLong(meta.id()).putLong(meta.createdMillis()).putInt(meta.files().size());
        for (int i = 0; i < meta.files().size(); i++) {
            FileEntry file = meta.files().get(i);
            out.put(file.shared() ? KIND_SHARED : KIND_PRIVATE).putShort((short) names.get(i).length)
                    .put(names.get(i)).putLong(file.size()).putInt(Checksums.mask(file.crc()));
        }
        out.putInt(Checksums.mask(Checksums.crc32c(out.array(), 0, out.position())));
        return out.array();
    }

    /** Decodes {@code bytes} read from {@code path}; any damage is a {@link CorruptionException} there. */
    public static Meta decode(Path path, byte[] bytes) throws CorruptionException {
        if (bytes.length < HEADER_SIZE + CHECKSUM_SIZE) {
            throw new CorruptionException(path, 0, "backup meta file is " + bytes.length + " bytes, too short");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int end = bytes.length - CHECKSUM_SIZE;
        int stored = Checksums.unmask(in.getInt(end));
        if (stored != Checksums.crc32c(bytes, 0, end)) {
            throw new CorruptionException(path, end, "backup meta file checksum mismatch");
        }
        if (in.getInt() != MAGIC) {
            throw new CorruptionException(path, 0, "not a backup meta file (bad magic)");
        }
        byte version = in.get();
        if (version != VERSION) {
            throw new CorruptionException(path, 4, "unknown backup meta format version " + version);
        }
        long id = in.getLong();
        long created = in.getLong();
        int count = in.getInt();
        if (count < 0 || count > (end - HEADER_SIZE) / 15) {
            throw new CorruptionException(path, 21, "bad file count " + count);
        }
        List<FileEntry> files = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = in.position();
            if (end - at < 15) {
                throw new CorruptionException(path, at, "file entry runs past the end");
            }
            byte kind = in.get();
            int nameLength = Short.toUnsignedInt(in.getShort());
            if ((kind != KIND_SHARED && kind != KIND_PRIVATE) || nameLength == 0 || nameLength > MAX_NAME_LENGTH
                    || end - in.position() < nameLength + 12) {
                throw new CorruptionException(path, at, "bad file entry");
            }
            byte[] name = new byte[nameLength];
            in.get(name);
            long size = in.getLong();
            int crc = Checksums.unmask(in.getInt());
            String fileName = new String(name, StandardCharsets.UTF_8);
            if (size < 0 || !isPlainName(fileName)) {
                throw new CorruptionException(path, at, "bad file entry for '" + fileName + "'");
            }
            files.add(new FileEntry(kind == KIND_SHARED, fileName, size, crc));
        }
        if (in.position() != end) {
            throw new CorruptionException(path, in.position(), "bytes after the last file entry");
        }
        return new Meta(id, created, List.copyOf(files));
    }
}
