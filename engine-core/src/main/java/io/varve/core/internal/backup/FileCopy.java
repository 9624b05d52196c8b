package io.varve.core.internal.backup;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/** Copies and checksums files through a {@link FileSystem}, reading each byte once. */
public final class FileCopy {

    private static final int CHUNK = 1 << 20;

    private FileCopy() {
    }

    /** Size and unmasked CRC32C of a file's bytes. */
    public record Summary(long size, int crc) {
    }

    /** Copies {@code from} to a new file {@code to}, syncs it, and returns what was copied. */
    public static Summary copy(FileSystem fs, Path from, Path to) throws IOException {
        CRC32C crc = new CRC32C();
        long size = 0;
        ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
        try (ReadableFile in = fs.openReadable(from); WritableFile out = fs.create(to)) {
            while (true) {
                buffer.clear();
                int n = in.read(buffer, size);
                if (n < 0) {
                    break;
                }
                buffer.flip();
                crc.update(buffer.duplicate());
                out.write(buffer);
                size += n;
            }
            out.sync();
        }
        return new Summary(size, (int) crc.getValue());
    }

    /** Size and checksum of {@code path}, read whole. */
    public static Summary summarize(FileSystem fs, Path path) throws IOException {
        CRC32C crc = new CRC32C();
        long size = 0;
        ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
        try (ReadableFile in = fs.openReadable(path)) {
            while (true) {
                buffer.clear();
                int n = in.read(buffer, size);
                if (n < 0) {
                    break;
                }
                buffer.flip();
                crc.update(buffer);
                size += n;
            }
        }
        return new Summary(size, (int) crc.getValue());
    }
}
