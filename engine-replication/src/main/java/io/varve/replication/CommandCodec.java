package io.varve.replication;

import io.varve.base.Varint;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of one Raft entry of the state machine: a {@link ReplicatedBatch}.
 *
 * <pre>
 *   version (1 byte, 1)
 *   family count (varint), then each family name: length (varint), UTF-8 bytes
 *   operation count (varint), then each operation:
 *     kind and family (varint: family index &lt;&lt; 1 | 1 for a put, 0 for a delete)
 *     key length (varint), key
 *     put only: value length (varint), value
 * </pre>
 *
 * Each family name is written once per command, so a batch of small writes to one family costs about three
 * bytes of framing per operation. Decoding checks every length against the entry's end and throws
 * {@link IllegalArgumentException}; it never allocates more than the entry holds.
 */
final class CommandCodec {
    static final byte VERSION = 1;

    private CommandCodec() {
    }

    static byte[] encode(ReplicatedBatch batch) {
        Map<String, Integer> families = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (ReplicatedBatch.Op op : batch.ops()) {
            if (families.putIfAbsent(op.family(), names.size()) == null) {
                names.add(op.family());
            }
        }
        Out out = new Out();
        out.write(VERSION);
        out.varint(names.size());
        for (String name : names) {
            out.bytes(name.getBytes(StandardCharsets.UTF_8));
        }
        out.varint(batch.count());
        for (ReplicatedBatch.Op op : batch.ops()) {
            out.varint((long) families.get(op.family()) << 1 | (op.value() != null ? 1 : 0));
            out.bytes(op.key());
            if (op.value() != null) {
                out.bytes(op.value());
            }
        }
        return out.toByteArray();
    }

    static List<ReplicatedBatch.Op> decode(byte[] entry) {
        In in = new In(entry);
        int version = in.readByte();
        if (version != VERSION) {
            throw new IllegalArgumentException("malformed command: unknown version " + version);
        }
        int familyCount = in.count();
        List<String> names = new ArrayList<>(familyCount);
        for (int i = 0; i < familyCount; i++) {
            names.add(new String(in.bytes(), StandardCharsets.UTF_8));
        }
        int opCount = in.count();
        List<ReplicatedBatch.Op> ops = new ArrayList<>(opCount);
        for (int i = 0; i < opCount; i++) {
            long tag = in.varint();
            long family = tag >>> 1;
            if (family >= names.size()) {
                throw new IllegalArgumentException("malformed command: names family " + family + " of " + names.size());
            }
            byte[] key = in.bytes();
            byte[] value = (tag & 1) != 0 ? in.bytes() : null;
            ops.add(new ReplicatedBatch.Op(names.get((int) family), key, value));
        }
        if (in.position != entry.length) {
            throw new IllegalArgumentException("malformed command: has " + (entry.length - in.position) + " trailing bytes");
        }
        return ops;
    }

    private static final class Out extends ByteArrayOutputStream {
        private final byte[] scratch = new byte[Varint.MAX_LONG_LENGTH];

        void varint(long value) {
            write(scratch, 0, Varint.write(scratch, 0, value));
        }

        void bytes(byte[] b) {
            varint(b.length);
            write(b, 0, b.length);
        }
    }

    private static final class In {
        private final byte[] data;
        private final MemorySegment segment;
        private int position;

        In(byte[] data) {
            this.data = data;
            this.segment = MemorySegment.ofArray(data);
        }

        int readByte() {
            if (position >= data.length) {
                throw new IllegalArgumentException("malformed command: truncated at " + position);
            }
            return data[position++];
        }

        long varint() {
            long packed = Varint.decodeInt(segment, position, data.length);
            if (packed == Varint.MALFORMED) {
                throw new IllegalArgumentException("malformed command: bad varint at " + position);
            }
            position += Varint.length(packed);
            return Varint.value(packed);
        }

        /** A count of items that each take at least one byte, so it cannot exceed the bytes left. */
        int count() {
            long count = varint();
            if (count > data.length - position) {
                throw new IllegalArgumentException("malformed command: claims " + count + " items in " + (data.length - position)
                        + " bytes");
            }
            return (int) count;
        }

        byte[] bytes() {
            long length = varint();
            if (length > data.length - position) {
                throw new IllegalArgumentException("malformed command: field of " + length + " bytes at " + position
                        + " runs past its end " + data.length);
            }
            byte[] b = new byte[(int) length];
            System.arraycopy(data, position, b, 0, b.length);
            position += b.length;
            return b;
        }
    }
}
