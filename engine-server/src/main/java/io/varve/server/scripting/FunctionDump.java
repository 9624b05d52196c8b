package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import io.varve.server.types.DumpFormat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * FUNCTION DUMP's payload in Redis 7's format, so a dump moves between Varve and Redis: per library the
 * RDB function opcode (245) and its code as an RDB string, then the RDB version (2 bytes, little-endian)
 * and a CRC-64 (Jones, reflected, as Redis computes it) of everything before, little-endian. Reading also
 * takes LZF-compressed strings, which Redis writes for long code.
 *
 * <pre>
 *   ( 0xF5 | rdb-length | code bytes )*  | version:u16le | crc64:u64le
 * </pre>
 */
public final class FunctionDump {

    private static final int OPCODE_FUNCTION2 = 245;
    /** The RDB version Redis 7.0 writes; a newer one is refused, as Redis refuses it. */
    private static final int RDB_VERSION = 10;
    private FunctionDump() {
    }

    public static byte[] dump(List<String> codes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String code : codes) {
            byte[] bytes = code.getBytes(StandardCharsets.UTF_8);
            out.write(OPCODE_FUNCTION2);
            writeLength(out, bytes.length);
            out.writeBytes(bytes);
        }
        out.write(RDB_VERSION & 0xff);
        out.write(RDB_VERSION >>> 8);
        byte[] body = out.toByteArray();
        long crc = DumpFormat.crc64(body, body.length);
        for (int i = 0; i < 8; i++) {
            out.write((int) (crc >>> (8 * i)) & 0xff);
        }
        return out.toByteArray();
    }

    private static void writeLength(ByteArrayOutputStream out, long n) {
        if (n < 64) {
            out.write((int) n);
        } else if (n < 16384) {
            out.write(0x40 | (int) (n >>> 8));
            out.write((int) n & 0xff);
        } else if (n <= 0xffffffffL) {
            out.write(0x80);
            for (int i = 3; i >= 0; i--) {
                out.write((int) (n >>> (8 * i)) & 0xff);
            }
        } else {
            out.write(0x81);
            for (int i = 7; i >= 0; i--) {
                out.write((int) (n >>> (8 * i)) & 0xff);
            }
        }
    }

    /** The library codes in {@code payload}, after checking its version and checksum. */
    public static List<byte[]> read(byte[] payload) {
        if (payload.length < 10) {
            throw wrong();
        }
        int version = (payload[payload.length - 10] & 0xff) | (payload[payload.length - 9] & 0xff) << 8;
        long crc = 0;
        for (int i = 0; i < 8; i++) {
            crc |= (payload[payload.length - 8 + i] & 0xffL) << (8 * i);
        }
        if (version > RDB_VERSION || DumpFormat.crc64(payload, payload.length - 8) != crc) {
            throw wrong();
        }
        Reader r = new Reader(payload, payload.length - 10);
        List<byte[]> codes = new ArrayList<>();
        while (r.at < r.end) {
            if (r.u8() != OPCODE_FUNCTION2) {
                throw new RedisError("ERR given type is not a function");
            }
            codes.add(r.string());
        }
        return codes;
    }

    private static RedisError wrong() {
        return new RedisError("ERR payload version or checksum are wrong");
    }

    private static final class Reader {
        private final byte[] in;
        private final int end;
        int at;

        Reader(byte[] in, int end) {
            this.in = in;
            this.end = end;
        }

        int u8() {
            if (at >= end) {
                throw new RedisError("ERR function restore failed, payload is corrupted");
            }
            return in[at++] & 0xff;
        }

        /** An RDB length; {@code encoded[0]} is set when it is a special encoding (LZF) instead. */
        long length(boolean[] encoded) {
            int first = u8();
            int kind = first >>> 6;
            switch (kind) {
                case 0:
                    return first & 0x3f;
                case 1:
                    return ((first & 0x3f) << 8) | u8();
                case 2: {
                    int bytes = first == 0x80 ? 4 : 8;
                    long n = 0;
                    for (int i = 0; i < bytes; i++) {
                        n = (n << 8) | u8();
                    }
                    return n;
                }
                default:
                    encoded[0] = true;
                    return first & 0x3f;
            }
        }

        byte[] string() {
            boolean[] encoded = new boolean[1];
            long n = length(encoded);
            if (!encoded[0]) {
                return bytes((int) n);
            }
            if (n != 3) { // RDB_ENC_LZF
                throw new RedisError("ERR function restore failed, payload is corrupted");
            }
            int compressed = (int) length(encoded);
            int plain = (int) length(encoded);
            try {
                return DumpFormat.lzfDecompress(bytes(compressed), plain);
            } catch (DumpFormat.BadFormatException | IndexOutOfBoundsException e) {
                throw new RedisError("ERR function restore failed, payload is corrupted");
            }
        }

        private byte[] bytes(int n) {
            if (n < 0 || at + n > end) {
                throw new RedisError("ERR function restore failed, payload is corrupted");
            }
            byte[] b = java.util.Arrays.copyOfRange(in, at, at + n);
            at += n;
            return b;
        }
    }
}
