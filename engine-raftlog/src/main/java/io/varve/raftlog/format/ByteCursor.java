package io.varve.raftlog.format;

import io.varve.base.CorruptionException;
import java.nio.file.Path;

/**
 * Bounds-checked reading of stored bytes. Every failure is a {@link CorruptionException} naming the file and
 * the absolute offset of the bad field, which is why the cursor knows where its bytes came from.
 */
public final class ByteCursor {
    private final byte[] buf;
    private final int end;
    private final Path file;
    private final long fileOffsetOfBuf;
    private int pos;

    /**
     * @param fileOffsetOfBuf the file offset that {@code buf[0]} was read from, for error messages
     */
    public ByteCursor(byte[] buf, int start, int end, Path file, long fileOffsetOfBuf) {
        this.buf = buf;
        this.pos = start;
        this.end = end;
        this.file = file;
        this.fileOffsetOfBuf = fileOffsetOfBuf;
    }

    public int position() {
        return pos;
    }

    public int remaining() {
        return end - pos;
    }

    public long fileOffset() {
        return fileOffsetOfBuf + pos;
    }

    public int u8() throws CorruptionException {
        need(1, "byte");
        return buf[pos++] & 0xFF;
    }

    public int intLE() throws CorruptionException {
        need(4, "32-bit field");
        int v = ByteSink.getIntLE(buf, pos);
        pos += 4;
        return v;
    }

    public long varint() throws CorruptionException {
        long result = 0;
        int start = pos;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= end) {
                throw corrupt(start, "truncated varint");
            }
            byte b = buf[pos++];
            result |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                if (shift == 63 && (b & 0x7F) > 1) {
                    throw corrupt(start, "varint overflows 64 bits");
                }
                return result;
            }
        }
        throw corrupt(start, "varint longer than 10 bytes");
    }

    /** A varint that must lie in {@code [0, max]}, e.g. a length or a count. */
    public int boundedInt(long max, String what) throws CorruptionException {
        int start = pos;
        long v = varint();
        if (v < 0 || v > max) {
            throw corrupt(start, what + " " + Long.toUnsignedString(v) + " is out of range [0, " + max + "]");
        }
        return (int) v;
    }

    public byte[] bytes(int n) throws CorruptionException {
        need(n, "byte string");
        byte[] out = new byte[n];
        System.arraycopy(buf, pos, out, 0, n);
        pos += n;
        return out;
    }

    /** @param lengthName what the length prefix is, for error messages (e.g. "key length") */
    public byte[] lengthPrefixed(String lengthName) throws CorruptionException {
        int n = boundedInt(remaining(), lengthName);
        return bytes(n);
    }

    /** Skips a length-prefixed byte string, checking it is all there. */
    public void skipLengthPrefixed(String lengthName) throws CorruptionException {
        int n = boundedInt(remaining(), lengthName);
        pos += n;
    }

    public CorruptionException corrupt(int at, String detail) {
        return new CorruptionException(file, fileOffsetOfBuf + at, detail);
    }

    private void need(int n, String what) throws CorruptionException {
        if (n < 0 || n > end - pos) {
            throw corrupt(pos, "truncated " + what + ": need " + n + " bytes, " + (end - pos) + " left");
        }
    }
}
