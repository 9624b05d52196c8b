package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore;
import io.varve.server.store.StreamStore.Consumer;
import io.varve.server.store.StreamStore.Entry;
import io.varve.server.store.StreamStore.Group;
import io.varve.server.store.StreamStore.Header;
import io.varve.server.store.StreamStore.Pending;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Consumer groups of streams: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and the groups' part of
 * XINFO. A group, its pending entries and its consumers are subkeys of the stream ({@link StreamStore}); the
 * counts the group and consumer records carry are kept by {@link GroupEdit} in the same batch as the records
 * they count. Writers hold the stream's lock; readers use a snapshot. Times are the keyspace clock's.
 */
public final class StreamGroups {

    private final Keyspace keyspace;
    private final StreamStore store;

    StreamGroups(Keyspace keyspace, StreamStore store) {
        this.keyspace = keyspace;
        this.store = store;
    }

    private static final String KEY_MUST_EXIST = "ERR The XGROUP subcommand requires the key to exist. Note that "
            + "for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.";

    private static StreamError noSuchGroup(byte[] key, byte[] group) {
        return new StreamError("NOGROUP No such consumer group '" + RedisStreams.text(group) + "' for key name '"
                + RedisStreams.text(key) + "'");
    }

    /**
     * XGROUP CREATE: a group whose last delivered ID is {@code id} (null: the stream's last ID, {@code $}).
     * With {@code mkStream} an absent key becomes an empty stream.
     */
    public void create(byte[] key, byte[] group, StreamId id, boolean mkStream, long entriesRead) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            WriteBatch batch = new WriteBatch();
            if (meta == null) {
                if (!mkStream) {
                    throw new StreamError(KEY_MUST_EXIST);
                }
                meta = store.create();
            }
            Header h = StreamStore.header(meta);
            if (store.group(ReadOptions.DEFAULT, key, meta, group) != null) {
                throw new StreamError("BUSYGROUP Consumer Group name already exists");
            }
            store.putGroup(batch, key, meta, new Group(group, id == null ? h.lastId() : id, entriesRead, 0, 0));
            keyspace.putMetadata(batch, key, StreamStore.with(meta, h.withGroups(h.groups() + 1)));
            keyspace.commit(batch);
        }
    }

    /** Looks up the stream and group for an XGROUP subcommand other than CREATE. */
    private Metadata streamForGroup(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.STREAM);
        if (meta == null) {
            throw new StreamError(KEY_MUST_EXIST);
        }
        return meta;
    }

    /** XGROUP SETID: moves the group's last delivered ID ({@code null}: the stream's last ID). */
    public void setId(byte[] key, byte[] group, StreamId id, long entriesRead) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = streamForGroup(key);
            Group g = store.group(ReadOptions.DEFAULT, key, meta, group);
            if (g == null) {
                throw noSuchGroup(key, group);
            }
            StreamId to = id == null ? StreamStore.header(meta).lastId() : id;
            WriteBatch batch = new WriteBatch();
            store.putGroup(batch, key, meta, g.withLastDelivered(to, entriesRead));
            keyspace.commit(batch);
        }
    }

    /** XGROUP DESTROY: whether the group existed. Its blocked readers are then told it is gone. */
    public boolean destroy(byte[] key, byte[] group) {
        boolean destroyed;
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = streamForGroup(key);
            destroyed = store.group(ReadOptions.DEFAULT, key, meta, group) != null;
            if (destroyed) {
                WriteBatch batch = new WriteBatch();
                store.deleteGroup(ReadOptions.DEFAULT, batch, key, meta, group);
                Header h = StreamStore.header(meta);
                keyspace.putMetadata(batch, key, StreamStore.with(meta, h.withGroups(h.groups() - 1)));
                keyspace.commit(batch);
            }
        }
        if (destroyed) {
            keyspace.blocking().signal(key);
        }
        return destroyed;
    }

    private GroupEdit edit(byte[] key, Metadata meta, byte[] group) {
        Group g = store.group(ReadOptions.DEFAULT, key, meta, group);
        return g == null ? null : new GroupEdit(store, key, meta, g, keyspace.now());
    }

    /** XGROUP CREATECONSUMER: whether the consumer was created. */
    public boolean createConsumer(byte[] key, byte[] group, byte[] consumer) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = streamForGroup(key);
            GroupEdit edit = edit(key, meta, group);
            if (edit == null) {
                throw noSuchGroup(key, group);
            }
            if (edit.consumer(consumer, false) != null) {
                return false;
            }
            edit.consumer(consumer, true);
            commit(edit);
            return true;
        }
    }

    /** XGROUP DELCONSUMER: the number of pending entries the consumer had (they are dropped with it). */
    public long deleteConsumer(byte[] key, byte[] group, byte[] consumer) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = streamForGroup(key);
            GroupEdit edit = edit(key, meta, group);
            if (edit == null) {
                throw noSuchGroup(key, group);
            }
            if (edit.consumer(consumer, false) == null) {
                return 0;
            }
            List<StreamId> owned = new ArrayList<>();
            store.forEachPending(ReadOptions.DEFAULT, key, meta, group, StreamId.MIN, p -> {
                if (Arrays.equals(p.consumer(), consumer)) {
                    owned.add(p.id());
                }
                return true;
            });
            owned.forEach(edit::removePending);
            WriteBatch batch = new WriteBatch();
            edit.deleteConsumer(batch, consumer);
            edit.flush(batch);
            keyspace.commit(batch);
            return owned.size();
        }
    }

    private void commit(GroupEdit edit) {
        WriteBatch batch = new WriteBatch();
        edit.flush(batch);
        keyspace.commit(batch);
    }

    /** XACK: how many of {@code ids} were pending in the group; 0 when the key or group is absent. */
    public long ack(byte[] key, byte[] group, List<StreamId> ids) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            GroupEdit edit = meta == null ? null : edit(key, meta, group);
            if (edit == null) {
                return 0;
            }
            long acked = 0;
            for (StreamId id : ids) {
                acked += edit.removePending(id) ? 1 : 0;
            }
            commit(edit);
            return acked;
        }
    }

    /** Throws NOGROUP unless {@code key} is a stream with {@code group} (WRONGTYPE for another type). */
    public void requireGroupOf(byte[] key, byte[] group) {
        Metadata meta = keyspace.lookup(key, RedisType.STREAM);
        if (meta == null || store.group(ReadOptions.DEFAULT, key, meta, group) == null) {
            throw StreamError.noGroup(key, group, "");
        }
    }

    /** Throws XREADGROUP's NOGROUP unless every key is a stream with the group (WRONGTYPE for another type). */
    public void requireGroup(List<byte[]> keys, byte[] group) {
        for (byte[] key : keys) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            if (meta == null || store.group(ReadOptions.DEFAULT, key, meta, group) == null) {
                throw StreamError.noGroup(key, group, " in XREADGROUP with GROUP option");
            }
        }
    }

    /** What a read through a group found in one stream; {@code items} of an entry are null when it was deleted. */
    public record Read(List<Entry> entries) {
    }

    /**
     * XREADGROUP with {@code >}: up to {@code count} (0: all) entries after the group's last delivered ID,
     * which moves to the last of them; unless {@code noAck}, each becomes pending for {@code consumer}.
     * Returns null when the stream or group no longer exists (a blocked reader then fails), an empty read
     * when there is nothing new. Caller holds the key's lock.
     */
    public Read readNew(byte[] key, byte[] group, byte[] consumer, long count, boolean noAck) {
        Metadata meta = keyspace.lookup(key);
        if (meta == null || meta.type() != RedisType.STREAM) {
            return null;
        }
        GroupEdit edit = edit(key, meta, group);
        if (edit == null) {
            return null;
        }
        Header h = StreamStore.header(meta);
        StreamId from = edit.group().lastDelivered().next();
        List<Entry> entries = from == null || h.lastId().compareTo(from) < 0 ? List.of()
                : store.entries(ReadOptions.DEFAULT, key, meta, from, StreamId.MAX, false, count);
        if (entries.isEmpty()) {
            return new Read(entries);
        }
        edit.seen(consumer);
        long now = keyspace.now();
        for (Entry e : entries) {
            Group g = edit.group();
            edit.group(g.withLastDelivered(e.id(), StreamCounters.afterDelivering(h, meta.size(), g, e.id())));
            if (!noAck) {
                edit.putPending(new Pending(e.id(), consumer, now, 1));
            }
        }
        commit(edit);
        return new Read(entries);
    }

    /**
     * XREADGROUP with an ID: the consumer's own pending entries after {@code after}, up to {@code count}
     * (0: all), each delivered once more (an entry deleted since shows with null items). Creates the
     * consumer if needed. Caller holds the key's lock and has checked the group exists.
     */
    public Read readHistory(byte[] key, byte[] group, byte[] consumer, StreamId after, long count) {
        Metadata meta = keyspace.lookup(key, RedisType.STREAM);
        GroupEdit edit = edit(key, meta, group);
        edit.seen(consumer);
        List<Pending> mine = new ArrayList<>();
        StreamId from = after.next();
        if (from != null) {
            store.forEachPending(ReadOptions.DEFAULT, key, meta, group, from, p -> {
                if (Arrays.equals(p.consumer(), consumer)) {
                    mine.add(p);
                }
                return count == 0 || mine.size() < count;
            });
        }
        List<Entry> entries = new ArrayList<>();
        long now = keyspace.now();
        for (Pending p : mine) {
            Entry e = store.entry(ReadOptions.DEFAULT, key, meta, p.id());
            if (e == null) {
                entries.add(new Entry(p.id(), null));
            } else {
                entries.add(e);
                edit.putPending(new Pending(p.id(), consumer, now, p.deliveryCount() + 1));
            }
        }
        commit(edit);
        return new Read(entries);
    }

    /** XPENDING's summary: the count, the lowest and highest pending IDs, and per consumer its count. */
    public record PendingSummary(long count, StreamId lowest, StreamId highest, List<Consumer> consumers) {
    }

    private Metadata streamWithGroup(ReadOptions at, byte[] key, byte[] group) {
        Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
        if (meta == null || store.group(at, key, meta, group) == null) {
            throw StreamError.noGroup(key, group, "");
        }
        return meta;
    }

    public PendingSummary pendingSummary(byte[] key, byte[] group) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = streamWithGroup(at, key, group);
            Group g = store.group(at, key, meta, group);
            StreamId[] bounds = store.pendingBounds(at, key, meta, group);
            List<Consumer> owning = store.consumers(at, key, meta, group).stream().filter(c -> c.pending() > 0).toList();
            return new PendingSummary(g.pending(), bounds == null ? null : bounds[0], bounds == null ? null : bounds[1],
                    owning);
        }
    }

    /**
     * XPENDING's extended form: pending entries with IDs in [{@code from}, {@code to}] idle for at least
     * {@code minIdle} ms, of {@code consumer} only if not null, at most {@code count}.
     */
    public List<Pending> pendingRange(byte[] key, byte[] group, long minIdle, StreamId from, StreamId to, long count,
                                      byte[] consumer) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = streamWithGroup(at, key, group);
            List<Pending> out = new ArrayList<>();
            if (count <= 0 || from.compareTo(to) > 0) {
                return out;
            }
            long now = keyspace.now();
            store.forEachPending(at, key, meta, group, from, p -> {
                if (p.id().compareTo(to) > 0) {
                    return false;
                }
                if ((consumer == null || Arrays.equals(consumer, p.consumer()))
                        && (minIdle == 0 || now - p.deliveryTime() >= minIdle)) {
                    out.add(p);
                }
                return out.size() < count;
            });
            return out;
        }
    }

    /** XCLAIM's options: new delivery time (-1: now), retry count (-1: increment unless JUSTID), FORCE, JUSTID, LASTID. */
    public record ClaimOptions(long deliveryTime, long retryCount, boolean force, boolean justId, StreamId lastId) {
    }

    /** XCLAIM: the claimed entries (items null with JUSTID). */
    public List<Entry> claim(byte[] key, byte[] group, byte[] consumer, long minIdle, List<StreamId> ids,
                             ClaimOptions options) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            GroupEdit edit = meta == null ? null : edit(key, meta, group);
            if (edit == null) {
                throw StreamError.noGroup(key, group, "");
            }
            long now = keyspace.now();
            if (options.lastId() != null && options.lastId().compareTo(edit.group().lastDelivered()) > 0) {
                edit.group(edit.group().withLastDelivered(options.lastId(), edit.group().entriesRead()));
            }
            long deliveryTime = options.deliveryTime() < 0 || options.deliveryTime() > now ? now : options.deliveryTime();
            List<Entry> claimed = new ArrayList<>();
            for (StreamId id : ids) {
                Pending p = edit.pending(id);
                Entry e = store.entry(ReadOptions.DEFAULT, key, meta, id);
                if (e == null) {
                    edit.removePending(id);
                    continue;
                }
                if (p == null && !options.force()) {
                    continue;
                }
                if (p != null && minIdle > 0 && now - p.deliveryTime() < minIdle) {
                    continue;
                }
                long deliveries = p == null ? 0 : p.deliveryCount();
                if (options.retryCount() >= 0) {
                    deliveries = options.retryCount();
                } else if (!options.justId()) {
                    deliveries++;
                }
                edit.seen(consumer);
                edit.putPending(new Pending(id, consumer, deliveryTime, deliveries));
                claimed.add(options.justId() ? new Entry(id, null) : e);
            }
            commit(edit);
            return claimed;
        }
    }

    /** XAUTOCLAIM's reply: where the next call starts, what was claimed, and pending IDs found deleted. */
    public record AutoClaimed(StreamId next, List<Entry> claimed, List<StreamId> deleted) {
    }

    /** XAUTOCLAIM: claims up to {@code count} entries idle for {@code minIdle} ms, scanning from {@code start}. */
    public AutoClaimed autoClaim(byte[] key, byte[] group, byte[] consumer, long minIdle, StreamId start, long count,
                                 boolean justId) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            GroupEdit edit = meta == null ? null : edit(key, meta, group);
            if (edit == null) {
                throw StreamError.noGroup(key, group, "");
            }
            long now = keyspace.now();
            long[] budget = {count * 10, count};
            List<Entry> claimed = new ArrayList<>();
            List<StreamId> deleted = new ArrayList<>();
            StreamId[] next = {StreamId.MIN};
            store.forEachPending(ReadOptions.DEFAULT, key, meta, group, start, p -> {
                if (budget[0] == 0 || budget[1] == 0) {
                    next[0] = p.id();
                    return false;
                }
                budget[0]--;
                Entry e = store.entry(ReadOptions.DEFAULT, key, meta, p.id());
                if (e == null) {
                    edit.removePending(p.id());
                    deleted.add(p.id());
                    budget[1]--;
                    return true;
                }
                if (minIdle > 0 && now - p.deliveryTime() < minIdle) {
                    return true;
                }
                edit.seen(consumer);
                edit.putPending(new Pending(p.id(), consumer, now, justId ? p.deliveryCount() : p.deliveryCount() + 1));
                claimed.add(justId ? new Entry(p.id(), null) : e);
                budget[1]--;
                return true;
            });
            commit(edit);
            return new AutoClaimed(next[0], claimed, deleted);
        }
    }

    /** A group as XINFO GROUPS shows it; {@code lag} null when unknown. */
    public record Summary(Group group, Long lag) {
    }

    /** XINFO GROUPS; {@link NoSuchKeyException} for an absent key. */
    public List<Summary> list(byte[] key) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            Header h = StreamStore.header(meta);
            return store.groups(at, key, meta).stream()
                    .map(g -> new Summary(g, StreamCounters.lag(h, meta.size(), g))).toList();
        }
    }

    /** XINFO CONSUMERS; {@link NoSuchKeyException} for an absent key. */
    public List<Consumer> consumers(byte[] key, byte[] group) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            if (store.group(at, key, meta, group) == null) {
                throw noSuchGroup(key, group);
            }
            return store.consumers(at, key, meta, group);
        }
    }

    /** A group in XINFO STREAM FULL: its summary, its first pending entries and its consumers with theirs. */
    public record Detail(Summary summary, List<Pending> pending, List<ConsumerDetail> consumers) {
    }

    public record ConsumerDetail(Consumer consumer, List<Pending> pending) {
    }

    List<Detail> details(ReadOptions at, byte[] key, Metadata meta, long count) {
        Header h = StreamStore.header(meta);
        List<Detail> out = new ArrayList<>();
        for (Group g : store.groups(at, key, meta)) {
            List<Pending> all = new ArrayList<>();
            store.forEachPending(at, key, meta, g.name(), StreamId.MIN, p -> {
                all.add(p);
                return true;
            });
            List<ConsumerDetail> consumers = new ArrayList<>();
            for (Consumer c : store.consumers(at, key, meta, g.name())) {
                List<Pending> own = all.stream().filter(p -> Arrays.equals(p.consumer(), c.name()))
                        .limit(count == 0 ? Long.MAX_VALUE : count).toList();
                consumers.add(new ConsumerDetail(c, own));
            }
            List<Pending> shown = count == 0 ? all : all.subList(0, (int) Math.min(count, all.size()));
            out.add(new Detail(new Summary(g, StreamCounters.lag(h, meta.size(), g)), shown, consumers));
        }
        return out;
    }
}
