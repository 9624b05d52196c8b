package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * List elements as subkeys keyed by position ({@code 's' | len | key | version | position(8)}, see
 * {@link KeyEncoding}). The list occupies the positions {@code [head, tail)}; its metadata carries both ends
 * after the common collection header, so element {@code i} is at {@code head + i}: LINDEX and LSET are one
 * point lookup, and a push at either end writes one subkey and the metadata, never moving elements.
 *
 * <p>Positions are signed in Java and stored offset-binary (the sign bit flipped) and big-endian, so a
 * position left of the first push (negative) still sorts before it as unsigned bytes. A new list starts at
 * position 0; 2^63 pushes at one end would be needed to run out of positions.
 *
 * <p>Callers hold the key's lock for writes and keep metadata and subkeys in one batch, as for hashes.
 */
public final class ListStore {

    /** Pops of at most this many elements read them one by one instead of through an iterator. */
    private static final int POINT_READS = 8;

    /** Bytes of the list-specific metadata after the common collection header: head and tail positions. */
    static final int EXTRA_LENGTH = 16;

    private final Keyspace keyspace;

    public ListStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Metadata for a brand-new, empty list: a fresh version so no stale subkeys can show through. */
    public Metadata create() {
        return withEnds(Metadata.collection(RedisType.LIST, 0, keyspace.newVersion(), 0), 0, 0);
    }

    public static long head(Metadata meta) {
        return ByteBuffer.wrap(meta.value()).getLong(0) ^ Long.MIN_VALUE;
    }

    public static long tail(Metadata meta) {
        return ByteBuffer.wrap(meta.value()).getLong(8) ^ Long.MIN_VALUE;
    }

    /** {@code meta} with the list at positions [head, tail); the size follows. */
    public static Metadata withEnds(Metadata meta, long head, long tail) {
        byte[] extra = ByteBuffer.allocate(EXTRA_LENGTH).putLong(head ^ Long.MIN_VALUE).putLong(tail ^ Long.MIN_VALUE)
                .array();
        return meta.withExtra(extra).withSize(tail - head);
    }

    /** The subkey field of a position: offset-binary, big-endian. */
    static byte[] field(long position) {
        return ByteBuffer.allocate(8).putLong(position ^ Long.MIN_VALUE).array();
    }

    static long position(byte[] field) {
        return ByteBuffer.wrap(field).getLong() ^ Long.MIN_VALUE;
    }

    /** Element {@code index} (0 = head), or null when out of range. */
    public byte[] get(ReadOptions options, byte[] key, Metadata meta, long index) {
        if (index < 0 || index >= meta.size()) {
            return null;
        }
        return keyspace.db().get(options, keyspace.database().subkey(key, meta.version(), field(head(meta) + index)));
    }

    public void put(WriteBatch batch, byte[] key, Metadata meta, long position, byte[] value) {
        batch.put(keyspace.database().subkey(key, meta.version(), field(position)), value);
    }

    public void delete(WriteBatch batch, byte[] key, Metadata meta, long position) {
        batch.delete(keyspace.database().subkey(key, meta.version(), field(position)));
    }

    /** Elements {@code from..to} (indexes, inclusive, already clamped to the list) in order. */
    public List<byte[]> range(ReadOptions options, byte[] key, Metadata meta, long from, long to) {
        List<byte[]> out = new ArrayList<>();
        if (from > to) {
            return out;
        }
        long head = head(meta);
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        byte[] upper = keyspace.database().subkey(key, meta.version(), field(head + to + 1));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(prefix).withUpperBound(upper))) {
            for (it.seek(keyspace.database().subkey(key, meta.version(), field(head + from))); it.valid(); it.next()) {
                out.add(it.value());
            }
        }
        return out;
    }

    /**
     * {@link #range} for the few elements a pop takes: point reads, which stop at the newest source holding
     * the element (often the memtable, since pushes and pops work at the same end) where an iterator seeks
     * in every memtable and table. Positions between head and tail are never missing; if one is, the
     * iterator answers.
     */
    private List<byte[]> ends(ReadOptions options, byte[] key, Metadata meta, long from, long to) {
        if (to - from >= POINT_READS) {
            return range(options, key, meta, from, to);
        }
        List<byte[]> out = new ArrayList<>((int) (to - from + 1));
        for (long i = from; i <= to; i++) {
            byte[] value = get(options, key, meta, i);
            if (value == null) {
                return range(options, key, meta, from, to);
            }
            out.add(value);
        }
        return out;
    }

    /** The whole list in order. */
    public List<byte[]> all(ReadOptions options, byte[] key, Metadata meta) {
        return range(options, key, meta, 0, meta.size() - 1);
    }

    /**
     * Rewrites the list as {@code elements} from index {@code from} on: the first {@code from} elements stay
     * where they are, the rest are written at their new positions and positions past the new end are
     * deleted. Returns the new metadata (caller puts it in the same batch, or deletes the key if empty).
     */
    public Metadata rewriteFrom(WriteBatch batch, byte[] key, Metadata meta, List<byte[]> elements, int from) {
        long head = head(meta);
        long oldTail = tail(meta);
        for (int i = from; i < elements.size(); i++) {
            put(batch, key, meta, head + i, elements.get(i));
        }
        long newTail = head + elements.size();
        for (long p = newTail; p < oldTail; p++) {
            delete(batch, key, meta, p);
        }
        return withEnds(meta, head, newTail);
    }

    /** Pushes {@code values} one by one at the head (left) or tail; returns the new metadata. */
    public Metadata push(WriteBatch batch, byte[] key, Metadata meta, boolean left, List<byte[]> values) {
        long head = head(meta);
        long tail = tail(meta);
        for (byte[] v : values) {
            if (left) {
                put(batch, key, meta, --head, v);
            } else {
                put(batch, key, meta, tail++, v);
            }
        }
        return withEnds(meta, head, tail);
    }

    /**
     * Removes up to {@code count} elements from the head (left) or tail into {@code popped}, in pop order;
     * returns the new metadata, of size 0 when the list ran empty (the caller then deletes the key).
     */
    public Metadata pop(ReadOptions options, WriteBatch batch, byte[] key, Metadata meta, boolean left, long count,
                        List<byte[]> popped) {
        long n = Math.min(count, meta.size());
        long head = head(meta);
        long tail = tail(meta);
        if (left) {
            popped.addAll(ends(options, key, meta, 0, n - 1));
            for (long p = head; p < head + n; p++) {
                delete(batch, key, meta, p);
            }
            return withEnds(meta, head + n, tail);
        }
        List<byte[]> fromTail = ends(options, key, meta, meta.size() - n, meta.size() - 1);
        for (int i = fromTail.size() - 1; i >= 0; i--) {
            popped.add(fromTail.get(i));
        }
        for (long p = tail - n; p < tail; p++) {
            delete(batch, key, meta, p);
        }
        return withEnds(meta, head, tail - n);
    }
}
