package io.varve.stress.raftlog;

import io.varve.raftlog.LogBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One operation of the raft-log campaigns, with a one-line text form (the child reports its operations in
 * it) and the bytes it writes. Entry and value bytes are a function of (group, index or key, version), so the
 * oracle keeps only versions and can still check every byte read back: an entry starts with its group, index
 * and version, followed by filler derived from them.
 */
public sealed interface LogOp {
    List<String> KEYS = List.of("hs", "apply", "conf", "snap");

    long group();

    /** Appends {@code count} entries from {@code first}, replacing any entries at or after it. */
    record Append(long group, long first, int count, long version) implements LogOp {
    }

    record Compact(long group, long index) implements LogOp {
    }

    record Put(long group, String key, long version) implements LogOp {
    }

    record Delete(long group, String key) implements LogOp {
    }

    default String encode() {
        return switch (this) {
            case Append a -> "a " + a.group + " " + a.first + " " + a.count + " " + a.version;
            case Compact c -> "c " + c.group + " " + c.index;
            case Put p -> "p " + p.group + " " + p.key + " " + p.version;
            case Delete d -> "d " + d.group + " " + d.key;
        };
    }

    static LogOp decode(String text) {
        String[] f = text.trim().split(" ");
        return switch (f[0]) {
            case "a" -> new Append(Long.parseLong(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]),
                    Long.parseLong(f[4]));
            case "c" -> new Compact(Long.parseLong(f[1]), Long.parseLong(f[2]));
            case "p" -> new Put(Long.parseLong(f[1]), f[2], Long.parseLong(f[3]));
            case "d" -> new Delete(Long.parseLong(f[1]), f[2]);
            default -> throw new IllegalArgumentException("unknown operation: " + text);
        };
    }

    /** Operations joined with ';', as one batch. */
    static String encodeBatch(List<LogOp> ops) {
        StringBuilder b = new StringBuilder();
        for (LogOp op : ops) {
            if (!b.isEmpty()) {
                b.append(';');
            }
            b.append(op.encode());
        }
        return b.toString();
    }

    static List<LogOp> decodeBatch(String text) {
        List<LogOp> ops = new ArrayList<>();
        for (String part : text.split(";")) {
            ops.add(decode(part));
        }
        return ops;
    }

    static LogBatch toBatch(List<LogOp> ops) {
        LogBatch batch = new LogBatch();
        for (LogOp op : ops) {
            switch (op) {
                case Append a -> {
                    List<byte[]> entries = new ArrayList<>(a.count);
                    for (int i = 0; i < a.count; i++) {
                        entries.add(entry(a.group, a.first + i, a.version));
                    }
                    batch.addEntries(a.group, a.first, entries);
                }
                case Compact c -> batch.compactTo(c.group, c.index);
                case Put p -> batch.put(p.group, key(p.key), value(p.group, p.key, p.version));
                case Delete d -> batch.delete(d.group, key(d.key));
            }
        }
        return batch;
    }

    static byte[] key(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** The bytes of entry {@code index} of {@code group} written with {@code version}: 24 to 343 bytes. */
    static byte[] entry(long group, long index, long version) {
        long mix = group * 0x9E3779B97F4A7C15L ^ index * 0xC2B2AE3D27D4EB4FL ^ version;
        SplittableRandom r = new SplittableRandom(mix);
        byte[] b = new byte[24 + r.nextInt(320)];
        ByteBuffer.wrap(b).putLong(group).putLong(index).putLong(version);
        for (int i = 24; i < b.length; i++) {
            b[i] = i % 3 == 0 ? (byte) r.nextInt() : (byte) (i % 11); // partly compressible
        }
        return b;
    }

    static byte[] value(long group, String key, long version) {
        SplittableRandom r = new SplittableRandom(group * 31 + key.hashCode() ^ version);
        byte[] b = new byte[8 + r.nextInt(40)];
        ByteBuffer.wrap(b).putLong(version);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) r.nextInt();
        }
        return b;
    }

    /** The version recorded in an entry's bytes, or -1 if the bytes are not exactly that version's entry. */
    static long entryVersion(long group, long index, byte[] bytes) {
        if (bytes.length < 24) {
            return -1;
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.getLong() != group || in.getLong() != index) {
            return -1;
        }
        long version = in.getLong();
        return Arrays.equals(bytes, entry(group, index, version)) ? version : -1;
    }

    /** The version recorded in a value's bytes, or -1 if the bytes are not exactly that version's value. */
    static long valueVersion(long group, String key, byte[] bytes) {
        if (bytes.length < 8) {
            return -1;
        }
        long version = ByteBuffer.wrap(bytes).getLong();
        return Arrays.equals(bytes, value(group, key, version)) ? version : -1;
    }
}
