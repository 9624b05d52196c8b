package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A stream's records on the ordered key space, Kvrocks-style. All of them are subkeys under the stream's
 * version ({@code 's' | key length | key | version}, see {@link KeyEncoding}), so DEL, expiry and overwrite
 * only drop the metadata and {@link KeyspaceCompactionFilter} collects the rest as for any collection. A tag
 * byte after that prefix tells the kinds apart and keeps each kind one contiguous range:
 *
 * <pre>
 *  entry      0x00 | ms (8) | seq (8)                                  -> count (4), then per item: length (4) | bytes
 *  group      0x01 | group name                                        -> last-delivered (16) | entries-read (8) | pending (8) | consumers (8)
 *  pending    0x02 | group length (4) | group | ms (8) | seq (8)       -> delivery time (8) | delivery count (8) | consumer name
 *  consumer   0x03 | group length (4) | group | consumer name          -> seen time (8) | pending (8)
 * </pre>
 *
 * The metadata carries, after the common collection header (size = number of entries), the stream's own
 * 64 bytes: last ID (16), first entry ID (16), max deleted entry ID (16), entries added (8), groups (8).
 * IDs are big-endian unsigned (milliseconds, then sequence), so entries sort in ID order and a range of IDs
 * is one bounded iteration. Callers hold the key's lock for writes and commit records and metadata in one
 * batch.
 */
public final class StreamStore {

    static final byte ENTRY = 0x00;
    static final byte GROUP = 0x01;
    static final byte PENDING = 0x02;
    static final byte CONSUMER = 0x03;
    /** Bytes of the stream-specific metadata after the common collection header. */
    static final int EXTRA_LENGTH = 64;

    /** What the metadata says about the stream besides its length. */
    public record Header(StreamId lastId, StreamId firstId, StreamId maxDeletedId, long entriesAdded, long groups) {

        public static final Header EMPTY = new Header(StreamId.MIN, StreamId.MIN, StreamId.MIN, 0, 0);

        byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(EXTRA_LENGTH);
            lastId.writeTo(b);
            firstId.writeTo(b);
            maxDeletedId.writeTo(b);
            b.putLong(entriesAdded).putLong(groups);
            return b.array();
        }

        static Header decode(byte[] extra) {
            ByteBuffer b = ByteBuffer.wrap(extra);
            return new Header(StreamId.readFrom(b), StreamId.readFrom(b), StreamId.readFrom(b), b.getLong(), b.getLong());
        }

        public Header withLastId(StreamId id) {
            return new Header(id, firstId, maxDeletedId, entriesAdded, groups);
        }

        public Header withFirstId(StreamId id) {
            return new Header(lastId, id, maxDeletedId, entriesAdded, groups);
        }

        public Header withMaxDeletedId(StreamId id) {
            return new Header(lastId, firstId, id, entriesAdded, groups);
        }

        public Header withEntriesAdded(long n) {
            return new Header(lastId, firstId, maxDeletedId, n, groups);
        }

        public Header withGroups(long n) {
            return new Header(lastId, firstId, maxDeletedId, entriesAdded, n);
        }
    }

    /** One entry: its ID and its field/value items in order (fields at even positions). */
    public record Entry(StreamId id, List<byte[]> items) {
    }

    /** A consumer group's own record; {@code entriesRead} -1 means unknown. */
    public record Group(byte[] name, StreamId lastDelivered, long entriesRead, long pending, long consumers) {

        public Group withLastDelivered(StreamId id, long read) {
            return new Group(name, id, read, pending, consumers);
        }

        public Group withPending(long n) {
            return new Group(name, lastDelivered, entriesRead, n, consumers);
        }

        public Group withConsumers(long n) {
            return new Group(name, lastDelivered, entriesRead, pending, n);
        }
    }

    /** A delivered, unacknowledged entry of a group (an entry of its pending entries list). */
    public record Pending(StreamId id, byte[] consumer, long deliveryTime, long deliveryCount) {
    }

    /** A consumer of a group. */
    public record Consumer(byte[] name, long seenTime, long pending) {
    }

    private final Keyspace keyspace;

    public StreamStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Metadata for a brand-new, empty stream: a fresh version so no stale subkeys can show through. */
    public Metadata create() {
        return with(Metadata.collection(RedisType.STREAM, 0, keyspace.newVersion(), 0), Header.EMPTY);
    }

    public static Header header(Metadata meta) {
        return Header.decode(meta.value());
    }

    public static Metadata with(Metadata meta, Header header) {
        return meta.withExtra(header.encode());
    }

    // ---- entries

    private static byte[] entryField(StreamId id) {
        ByteBuffer b = ByteBuffer.allocate(1 + StreamId.BYTES);
        b.put(ENTRY);
        id.writeTo(b);
        return b.array();
    }

    static byte[] encodeItems(List<byte[]> items) {
        int size = 4;
        for (byte[] item : items) {
            size += 4 + item.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(items.size());
        for (byte[] item : items) {
            b.putInt(item.length).put(item);
        }
        return b.array();
    }

    static List<byte[]> decodeItems(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        int n = b.getInt();
        List<byte[]> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] item = new byte[b.getInt()];
            b.get(item);
            items.add(item);
        }
        return items;
    }

    public void putEntry(WriteBatch batch, byte[] key, Metadata meta, StreamId id, List<byte[]> items) {
        batch.put(keyspace.database().subkey(key, meta.version(), entryField(id)), encodeItems(items));
    }

    public void deleteEntry(WriteBatch batch, byte[] key, Metadata meta, StreamId id) {
        batch.delete(keyspace.database().subkey(key, meta.version(), entryField(id)));
    }

    /** The entry with {@code id}, or null. */
    public Entry entry(ReadOptions options, byte[] key, Metadata meta, StreamId id) {
        byte[] value = keyspace.db().get(options, keyspace.database().subkey(key, meta.version(), entryField(id)));
        return value == null ? null : new Entry(id, decodeItems(value));
    }

    /**
     * Entries with IDs in [{@code from}, {@code to}], ascending (or descending with {@code reverse}), at most
     * {@code limit} of them (0: all).
     */
    public List<Entry> entries(ReadOptions options, byte[] key, Metadata meta, StreamId from, StreamId to,
                               boolean reverse, long limit) {
        List<Entry> out = new ArrayList<>();
        if (from.compareTo(to) > 0) {
            return out;
        }
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        byte[] lower = keyspace.database().subkey(key, meta.version(), entryField(from));
        StreamId after = to.next();
        byte[] upper = after == null ? concat(prefix, new byte[] {GROUP})
                : keyspace.database().subkey(key, meta.version(), entryField(after));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(lower).withUpperBound(upper))) {
            if (reverse) {
                it.seekToLast();
            } else {
                it.seekToFirst();
            }
            for (; it.valid() && (limit == 0 || out.size() < limit); ) {
                out.add(new Entry(StreamId.decode(it.key(), prefix.length + 1), decodeItems(it.value())));
                if (reverse) {
                    it.prev();
                } else {
                    it.next();
                }
            }
        }
        return out;
    }

    /** IDs of the first {@code limit} entries (0: all) from the start, ascending, below {@code below} if not null. */
    public List<StreamId> firstIds(ReadOptions options, byte[] key, Metadata meta, long limit, StreamId below) {
        List<StreamId> out = new ArrayList<>();
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        byte[] lower = concat(prefix, new byte[] {ENTRY});
        byte[] upper = below == null ? concat(prefix, new byte[] {GROUP})
                : keyspace.database().subkey(key, meta.version(), entryField(below));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(lower).withUpperBound(upper))) {
            for (it.seekToFirst(); it.valid() && (limit == 0 || out.size() < limit); it.next()) {
                out.add(StreamId.decode(it.key(), prefix.length + 1));
            }
        }
        return out;
    }

    // ---- groups

    private static byte[] groupField(byte[] group) {
        return concat(new byte[] {GROUP}, group);
    }

    public Group group(ReadOptions options, byte[] key, Metadata meta, byte[] name) {
        byte[] value = keyspace.db().get(options, keyspace.database().subkey(key, meta.version(), groupField(name)));
        return value == null ? null : decodeGroup(name, value);
    }

    private static Group decodeGroup(byte[] name, byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        return new Group(name, StreamId.readFrom(b), b.getLong(), b.getLong(), b.getLong());
    }

    public void putGroup(WriteBatch batch, byte[] key, Metadata meta, Group group) {
        ByteBuffer b = ByteBuffer.allocate(StreamId.BYTES + 24);
        group.lastDelivered().writeTo(b);
        b.putLong(group.entriesRead()).putLong(group.pending()).putLong(group.consumers());
        batch.put(keyspace.database().subkey(key, meta.version(), groupField(group.name())), b.array());
    }

    /** Every group of the stream, by name. */
    public List<Group> groups(ReadOptions options, byte[] key, Metadata meta) {
        List<Group> out = new ArrayList<>();
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(concat(prefix, new byte[] {GROUP}))
                .withUpperBound(concat(prefix, new byte[] {PENDING})))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] k = it.key();
                byte[] name = java.util.Arrays.copyOfRange(k, prefix.length + 1, k.length);
                out.add(decodeGroup(name, it.value()));
            }
        }
        return out;
    }

    /** Deletes the group's record, its pending entries and its consumers. */
    public void deleteGroup(ReadOptions options, WriteBatch batch, byte[] key, Metadata meta, byte[] name) {
        batch.delete(keyspace.database().subkey(key, meta.version(), groupField(name)));
        for (byte tag : new byte[] {PENDING, CONSUMER}) {
            byte[] start = keyspace.database().subkey(key, meta.version(), groupScoped(tag, name, new byte[0]));
            try (DbIterator it = keyspace.db().iterator(options.withLowerBound(start)
                    .withUpperBound(KeyEncoding.prefixEnd(start)))) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    batch.delete(it.key());
                }
            }
        }
    }

    private static byte[] groupScoped(byte tag, byte[] group, byte[] rest) {
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + group.length + rest.length);
        b.put(tag).putInt(group.length).put(group).put(rest);
        return b.array();
    }

    // ---- pending entries

    public Pending pending(ReadOptions options, byte[] key, Metadata meta, byte[] group, StreamId id) {
        byte[] value = keyspace.db().get(options, keyspace.database().subkey(key, meta.version(),
                groupScoped(PENDING, group, id.encode())));
        return value == null ? null : decodePending(id, value);
    }

    private static Pending decodePending(StreamId id, byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        long time = b.getLong();
        long count = b.getLong();
        byte[] consumer = new byte[b.remaining()];
        b.get(consumer);
        return new Pending(id, consumer, time, count);
    }

    public void putPending(WriteBatch batch, byte[] key, Metadata meta, byte[] group, Pending p) {
        ByteBuffer b = ByteBuffer.allocate(16 + p.consumer().length);
        b.putLong(p.deliveryTime()).putLong(p.deliveryCount()).put(p.consumer());
        batch.put(keyspace.database().subkey(key, meta.version(), groupScoped(PENDING, group, p.id().encode())), b.array());
    }

    public void deletePending(WriteBatch batch, byte[] key, Metadata meta, byte[] group, StreamId id) {
        batch.delete(keyspace.database().subkey(key, meta.version(), groupScoped(PENDING, group, id.encode())));
    }

    /** Visits a group's pending entries from {@code from} on, ascending, while {@code visitor} returns true. */
    public void forEachPending(ReadOptions options, byte[] key, Metadata meta, byte[] group, StreamId from,
                               java.util.function.Predicate<Pending> visitor) {
        byte[] start = keyspace.database().subkey(key, meta.version(), groupScoped(PENDING, group, new byte[0]));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(start)
                .withUpperBound(KeyEncoding.prefixEnd(start)))) {
            it.seek(keyspace.database().subkey(key, meta.version(), groupScoped(PENDING, group, from.encode())));
            for (; it.valid(); it.next()) {
                if (!visitor.test(decodePending(StreamId.decode(it.key(), start.length), it.value()))) {
                    return;
                }
            }
        }
    }

    /** The first and last pending IDs of a group, or null when it has none. */
    public StreamId[] pendingBounds(ReadOptions options, byte[] key, Metadata meta, byte[] group) {
        byte[] start = keyspace.database().subkey(key, meta.version(), groupScoped(PENDING, group, new byte[0]));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(start)
                .withUpperBound(KeyEncoding.prefixEnd(start)))) {
            it.seekToFirst();
            if (!it.valid()) {
                return null;
            }
            StreamId first = StreamId.decode(it.key(), start.length);
            it.seekToLast();
            return new StreamId[] {first, StreamId.decode(it.key(), start.length)};
        }
    }

    // ---- consumers

    public Consumer consumer(ReadOptions options, byte[] key, Metadata meta, byte[] group, byte[] name) {
        byte[] value = keyspace.db().get(options, keyspace.database().subkey(key, meta.version(),
                groupScoped(CONSUMER, group, name)));
        return value == null ? null : decodeConsumer(name, value);
    }

    private static Consumer decodeConsumer(byte[] name, byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        return new Consumer(name, b.getLong(), b.getLong());
    }

    public void putConsumer(WriteBatch batch, byte[] key, Metadata meta, byte[] group, Consumer c) {
        batch.put(keyspace.database().subkey(key, meta.version(), groupScoped(CONSUMER, group, c.name())),
                ByteBuffer.allocate(16).putLong(c.seenTime()).putLong(c.pending()).array());
    }

    public void deleteConsumer(WriteBatch batch, byte[] key, Metadata meta, byte[] group, byte[] name) {
        batch.delete(keyspace.database().subkey(key, meta.version(), groupScoped(CONSUMER, group, name)));
    }

    /** Every consumer of a group, by name. */
    public List<Consumer> consumers(ReadOptions options, byte[] key, Metadata meta, byte[] group) {
        List<Consumer> out = new ArrayList<>();
        byte[] start = keyspace.database().subkey(key, meta.version(), groupScoped(CONSUMER, group, new byte[0]));
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(start)
                .withUpperBound(KeyEncoding.prefixEnd(start)))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] k = it.key();
                out.add(decodeConsumer(java.util.Arrays.copyOfRange(k, start.length, k.length), it.value()));
            }
        }
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

}
