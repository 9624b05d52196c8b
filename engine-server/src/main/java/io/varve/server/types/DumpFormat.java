package io.varve.server.types;

import io.varve.server.store.RedisType;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The DUMP payload, in Redis's RDB object format so that Redis loads what Varve dumps:
 * <pre>
 *   type (1 byte) | object | RDB version (2 bytes, little-endian) | CRC-64/Jones of all before (8 bytes, LE)
 * </pre>
 * Varve writes the plain encodings: a string (type 0) as a length-prefixed string; a set (2) and a hash (4) as a
 * count and their members or field/value pairs; a sorted set (5, ZSET_2) as a count and member/score pairs, the
 * score as a little-endian IEEE double; a list (18, QUICKLIST_2) as one plain node per element. Lengths use RDB's
 * length encoding (6-, 14-, 32- or 64-bit). Reading also accepts the older list (1) and sorted set (3) types and
 * strings stored as integers or LZF-compressed, as Redis writes them; the compact listpack and intset encodings
 * Redis 7 writes for small collections are refused as a bad format.
 */
public final class DumpFormat {

    /** Redis 7.0's RDB version: payloads of a newer version are refused, as Redis refuses them. */
    static final int RDB_VERSION = 10;

    private static final int TYPE_STRING = 0;
    private static final int TYPE_LIST = 1;
    private static final int TYPE_SET = 2;
    private static final int TYPE_ZSET = 3;
    private static final int TYPE_HASH = 4;
    private static final int TYPE_ZSET_2 = 5;
    private static final int TYPE_LIST_QUICKLIST_2 = 18;
    private static final int QUICKLIST_NODE_PLAIN = 1;

    private static final long[] CRC_TABLE = crcTable();

    /**
     * A value as DUMP carries it: a string's one item; a list's or set's elements; a hash's fields and values
     * alternating; a sorted set's members with {@code scores} beside them.
     */
    public record Value(RedisType type, List<byte[]> items, double[] scores) {
    }

    /** The payload does not parse: Redis's "Bad data format". */
    public static final class BadFormatException extends RuntimeException {
        BadFormatException() {
            super("Bad data format", null, false, false);
        }
    }

    private DumpFormat() {
    }

    public static byte[] encode(Value value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<byte[]> items = value.items();
        switch (value.type()) {
            case STRING -> {
                out.write(TYPE_STRING);
                writeString(out, items.getFirst());
            }
            case SET -> {
                out.write(TYPE_SET);
                writeLength(out, items.size());
                items.forEach(item -> writeString(out, item));
            }
            case HASH -> {
                out.write(TYPE_HASH);
                writeLength(out, items.size() / 2);
                items.forEach(item -> writeString(out, item));
            }
            case ZSET -> {
                out.write(TYPE_ZSET_2);
                writeLength(out, items.size());
                byte[] score = new byte[8];
                for (int i = 0; i < items.size(); i++) {
                    writeString(out, items.get(i));
                    ByteBuffer.wrap(score).order(ByteOrder.LITTLE_ENDIAN).putDouble(value.scores()[i]);
                    out.writeBytes(score);
                }
            }
            case LIST -> {
                out.write(TYPE_LIST_QUICKLIST_2);
                writeLength(out, items.size());
                for (byte[] item : items) {
                    writeLength(out, QUICKLIST_NODE_PLAIN);
                    writeString(out, item);
                }
            }
            case STREAM -> throw new IllegalArgumentException("DUMP has no stream encoding");
        }
        out.write(RDB_VERSION & 0xff);
        out.write(RDB_VERSION >>> 8);
        long crc = crc64(out.toByteArray(), out.size());
        for (int i = 0; i < 8; i++) {
            out.write((int) (crc >>> (8 * i)));
        }
        return out.toByteArray();
    }

    /** Whether the footer is one Redis would accept: a known RDB version and a matching checksum. */
    public static boolean footerValid(byte[] payload) {
        if (payload.length < 10) {
            return false;
        }
        int version = (payload[payload.length - 10] & 0xff) | (payload[payload.length - 9] & 0xff) << 8;
        if (version > RDB_VERSION) {
            return false;
        }
        long stored = 0;
        for (int i = 0; i < 8; i++) {
            stored |= (payload[payload.length - 8 + i] & 0xffL) << (8 * i);
        }
        return stored == crc64(payload, payload.length - 8);
    }

    /** Parses a payload whose footer {@link #footerValid} accepted; throws {@link BadFormatException}. */
    public static Value decode(byte[] payload) {
        try {
            ByteBuffer in = ByteBuffer.wrap(payload, 0, payload.length - 10);
            int type = in.get() & 0xff;
            Value value = switch (type) {
                case TYPE_STRING -> new Value(RedisType.STRING, List.of(readString(in)), null);
                case TYPE_SET -> new Value(RedisType.SET, readStrings(in, readCount(in)), null);
                case TYPE_HASH -> new Value(RedisType.HASH, readStrings(in, 2 * readCount(in)), null);
                case TYPE_LIST -> new Value(RedisType.LIST, readStrings(in, readCount(in)), null);
                case TYPE_ZSET, TYPE_ZSET_2 -> readSortedSet(in, type == TYPE_ZSET_2);
                case TYPE_LIST_QUICKLIST_2 -> readQuicklist(in);
                default -> throw new BadFormatException();
            };
            if (in.hasRemaining() || value.items().isEmpty()) {
                throw new BadFormatException();
            }
            return value;
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new BadFormatException();
        }
    }

    private static Value readSortedSet(ByteBuffer in, boolean binaryScores) {
        int count = readCount(in);
        List<byte[]> members = new ArrayList<>(Math.min(count, 1024));
        double[] scores = new double[count];
        for (int i = 0; i < count; i++) {
            members.add(readString(in));
            if (binaryScores) {
                scores[i] = Double.longBitsToDouble(littleEndian(in, 8));
            } else {
                int length = in.get() & 0xff;
                byte[] text = new byte[length];
                in.get(text);
                scores[i] = Double.parseDouble(new String(text, java.nio.charset.StandardCharsets.US_ASCII));
            }
            if (Double.isNaN(scores[i])) {
                throw new BadFormatException();
            }
        }
        return new Value(RedisType.ZSET, members, scores);
    }

    private static Value readQuicklist(ByteBuffer in) {
        int nodes = readCount(in);
        List<byte[]> elements = new ArrayList<>(Math.min(nodes, 1024));
        for (int i = 0; i < nodes; i++) {
            if (readLength(in) != QUICKLIST_NODE_PLAIN) {
                throw new BadFormatException(); // a packed (listpack) node
            }
            elements.add(readString(in));
        }
        return new Value(RedisType.LIST, elements, null);
    }

    private static List<byte[]> readStrings(ByteBuffer in, int count) {
        List<byte[]> out = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            out.add(readString(in));
        }
        return out;
    }

    private static int readCount(ByteBuffer in) {
        long n = readLength(in);
        if (n <= 0 || n > Integer.MAX_VALUE / 2) {
            throw new BadFormatException();
        }
        return (int) n;
    }

    private static void writeLength(ByteArrayOutputStream out, long length) {
        if (length < 1 << 6) {
            out.write((int) length);
        } else if (length < 1 << 14) {
            out.write(0x40 | (int) (length >>> 8));
            out.write((int) length);
        } else if (length <= 0xffffffffL) {
            out.write(0x80);
            for (int shift = 24; shift >= 0; shift -= 8) {
                out.write((int) (length >>> shift));
            }
        } else {
            out.write(0x81);
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.write((int) (length >>> shift));
            }
        }
    }

    private static void writeString(ByteArrayOutputStream out, byte[] value) {
        writeLength(out, value.length);
        out.writeBytes(value);
    }

    /** A plain length; the encoded-string marker (11xxxxxx) is refused here. */
    private static long readLength(ByteBuffer in) {
        int first = in.get() & 0xff;
        return switch (first >>> 6) {
            case 0 -> first & 0x3f;
            case 1 -> ((first & 0x3f) << 8) | (in.get() & 0xff);
            case 2 -> switch (first) {
                case 0x80 -> in.getInt() & 0xffffffffL;
                case 0x81 -> in.getLong();
                default -> throw new BadFormatException();
            };
            default -> throw new BadFormatException();
        };
    }

    private static byte[] readString(ByteBuffer in) {
        int first = in.get(in.position()) & 0xff;
        if (first >>> 6 != 3) {
            long length = readLength(in);
            if (length < 0 || length > in.remaining()) {
                throw new BadFormatException();
            }
            byte[] out = new byte[(int) length];
            in.get(out);
            return out;
        }
        in.get();
        return switch (first & 0x3f) {
            case 0 -> Long.toString(in.get()).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            case 1 -> Long.toString((short) littleEndian(in, 2)).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            case 2 -> Long.toString((int) littleEndian(in, 4)).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            case 3 -> {
                long compressed = readLength(in);
                long length = readLength(in);
                if (compressed > in.remaining() || length > Integer.MAX_VALUE - 16) {
                    throw new BadFormatException();
                }
                byte[] data = new byte[(int) compressed];
                in.get(data);
                yield lzfDecompress(data, (int) length);
            }
            default -> throw new BadFormatException();
        };
    }

    private static long littleEndian(ByteBuffer in, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v |= (in.get() & 0xffL) << (8 * i);
        }
        return v;
    }

    /** LZF, as Redis compresses long strings in RDB files: literal runs and back references. */
    public static byte[] lzfDecompress(byte[] in, int length) {
        byte[] out = new byte[length];
        int ip = 0;
        int op = 0;
        while (ip < in.length) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < 32) {
                int run = ctrl + 1;
                System.arraycopy(in, ip, out, op, run);
                ip += run;
                op += run;
            } else {
                int run = ctrl >>> 5;
                if (run == 7) {
                    run += in[ip++] & 0xff;
                }
                int ref = op - ((ctrl & 0x1f) << 8) - 1 - (in[ip++] & 0xff);
                if (ref < 0) {
                    throw new BadFormatException();
                }
                for (int i = 0; i < run + 2; i++) {
                    out[op++] = out[ref++];
                }
            }
        }
        if (op != length) {
            throw new BadFormatException();
        }
        return out;
    }

    /** CRC-64/Jones (reflected, initial value 0), Redis's checksum of RDB files and DUMP payloads. */
    public static long crc64(byte[] data, int length) {
        long crc = 0;
        for (int i = 0; i < length; i++) {
            crc = CRC_TABLE[(int) ((crc ^ data[i]) & 0xff)] ^ (crc >>> 8);
        }
        return crc;
    }

    private static long[] crcTable() {
        long reflectedPolynomial = 0x95AC9329AC4BC9B5L;
        long[] table = new long[256];
        for (int n = 0; n < 256; n++) {
            long crc = n;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ reflectedPolynomial : crc >>> 1;
            }
            table[n] = crc;
        }
        return table;
    }
}
