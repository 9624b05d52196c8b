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
import io.varve.server.store.StreamStore.Entry;
import io.varve.server.store.StreamStore.Header;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The stream type's entries: XADD, XRANGE, XLEN, XDEL, XTRIM, XSETID and XREAD ({@link StreamStore}: one
 * subkey per entry keyed by its ID, the stream's counters in its metadata). Consumer groups are
 * {@link StreamGroups}. Writers hold the key's stripe lock from the metadata lookup to the commit and write
 * entries and metadata in one batch; multi-record reads run at a snapshot. Unlike lists and sets, a stream
 * that runs empty stays (Redis keeps it, with its last ID and groups). XADD signals blocked readers after its
 * commit.
 */
public final class RedisStreams {

    private final Keyspace keyspace;
    private final StreamStore store;
    private final StreamGroups groups;

    RedisStreams(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.store = new StreamStore(keyspace);
        this.groups = new StreamGroups(keyspace, store);
    }

    /** Consumer groups of streams. */
    public StreamGroups groups() {
        return groups;
    }

    /**
     * XADD: appends an entry with {@code id} (null: the next automatic ID; with {@code seqGiven} false, the
     * sequence of {@code id} is chosen automatically), trims when {@code trim} is not null, and returns the
     * entry's ID; null, writing nothing, when {@code noMkStream} and the key is absent.
     */
    public StreamId add(byte[] key, StreamId id, boolean seqGiven, boolean noMkStream, StreamTrim trim,
                        List<byte[]> items) {
        StreamId added;
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            if (meta == null) {
                if (noMkStream) {
                    return null;
                }
                meta = store.create();
            }
            Header h = StreamStore.header(meta);
            if (h.lastId().equals(StreamId.MAX)) {
                throw new StreamError("ERR The stream has exhausted the last possible ID, unable to add more items");
            }
            added = nextId(h.lastId(), id, seqGiven);
            WriteBatch batch = new WriteBatch();
            store.putEntry(batch, key, meta, added, items);
            h = h.withLastId(added).withEntriesAdded(h.entriesAdded() + 1);
            if (meta.size() == 0) {
                h = h.withFirstId(added);
            }
            meta = meta.withSize(meta.size() + 1);
            if (trim != null) {
                Trimmed t = trimLocked(batch, key, meta, h, trim, added);
                meta = t.meta;
                h = t.header;
            }
            keyspace.putMetadata(batch, key, StreamStore.with(meta, h));
            keyspace.commit(batch);
        }
        keyspace.blocking().signal(key);
        return added;
    }

    private StreamId nextId(StreamId last, StreamId given, boolean seqGiven) {
        StreamId next;
        if (given == null) {
            long now = keyspace.now();
            next = Long.compareUnsigned(now, last.ms()) > 0 ? new StreamId(now, 0) : last.next();
        } else if (!seqGiven) {
            if (given.ms() == last.ms()) {
                if (last.seq() == -1L) {
                    throw tooSmall();
                }
                next = new StreamId(last.ms(), last.seq() + 1);
            } else {
                next = new StreamId(given.ms(), 0);
            }
        } else {
            next = given;
        }
        if (next == null || next.compareTo(last) <= 0) {
            throw tooSmall();
        }
        return next;
    }

    private static StreamError tooSmall() {
        return new StreamError("ERR The ID specified in XADD is equal or smaller than the target stream top item");
    }

    private record Trimmed(Metadata meta, Header header, long removed) {
    }

    /**
     * Removes head entries as {@code trim} says. {@code pending} is an entry already in {@code batch} but
     * not in the database (XADD's own, always the last), or null.
     */
    private Trimmed trimLocked(WriteBatch batch, byte[] key, Metadata meta, Header h, StreamTrim trim,
                               StreamId pending) {
        long length = meta.size();
        List<StreamId> head;
        long candidates;
        if (trim.byLength()) {
            candidates = Math.max(0, length - trim.maxLength());
            long take = trim.allowed(candidates, length);
            head = headIds(key, meta, pending, take + 1, null);
            candidates = take;
        } else {
            List<StreamId> below = headIds(key, meta, pending, 0, trim.minId());
            candidates = trim.allowed(below.size(), length);
            head = headIds(key, meta, pending, candidates + 1, null);
        }
        if (candidates == 0) {
            return new Trimmed(meta, h, 0);
        }
        for (int i = 0; i < candidates; i++) {
            store.deleteEntry(batch, key, meta, head.get(i));
        }
        long left = length - candidates;
        Header after = h.withFirstId(left == 0 ? StreamId.MIN : head.get((int) candidates));
        return new Trimmed(meta.withSize(left), after, candidates);
    }

    /** The first {@code limit} entry IDs (0: all), below {@code below} if not null, counting {@code pending}. */
    private List<StreamId> headIds(byte[] key, Metadata meta, StreamId pending, long limit, StreamId below) {
        List<StreamId> ids = new ArrayList<>(store.firstIds(ReadOptions.DEFAULT, key, meta, limit, below));
        if (pending != null && (limit == 0 || ids.size() < limit) && (below == null || pending.compareTo(below) < 0)
                && (ids.isEmpty() || !ids.getLast().equals(pending))) {
            ids.add(pending);
        }
        return ids;
    }

    /** XTRIM: how many entries it removed; 0 for an absent key. */
    public long trim(byte[] key, StreamTrim trim) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            if (meta == null) {
                return 0;
            }
            WriteBatch batch = new WriteBatch();
            Trimmed t = trimLocked(batch, key, meta, StreamStore.header(meta), trim, null);
            if (t.removed > 0) {
                keyspace.putMetadata(batch, key, StreamStore.with(t.meta, t.header));
                keyspace.commit(batch);
            }
            return t.removed;
        }
    }

    /** XDEL: deletes the entries among {@code ids} that exist; returns how many. */
    public long delete(byte[] key, List<StreamId> ids) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            if (meta == null) {
                return 0;
            }
            Header h = StreamStore.header(meta);
            WriteBatch batch = new WriteBatch();
            List<StreamId> deleted = new ArrayList<>();
            boolean first = false;
            for (StreamId id : ids) {
                if (deleted.contains(id) || store.entry(ReadOptions.DEFAULT, key, meta, id) == null) {
                    continue;
                }
                store.deleteEntry(batch, key, meta, id);
                deleted.add(id);
                first |= id.equals(h.firstId());
                if (id.compareTo(h.maxDeletedId()) > 0) {
                    h = h.withMaxDeletedId(id);
                }
            }
            if (deleted.isEmpty()) {
                return 0;
            }
            long left = meta.size() - deleted.size();
            if (left == 0) {
                h = h.withFirstId(StreamId.MIN);
            } else if (first) {
                for (StreamId id : store.firstIds(ReadOptions.DEFAULT, key, meta, deleted.size() + 1, null)) {
                    if (!deleted.contains(id)) {
                        h = h.withFirstId(id);
                        break;
                    }
                }
            }
            keyspace.putMetadata(batch, key, StreamStore.with(meta.withSize(left), h));
            keyspace.commit(batch);
            return deleted.size();
        }
    }

    /** XLEN: the number of entries, 0 for an absent key. */
    public long length(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.STREAM);
        return meta == null ? 0 : meta.size();
    }

    /** XRANGE/XREVRANGE: entries between the two IDs (inclusive), at most {@code count} (0: all). */
    public List<Entry> range(byte[] key, StreamId from, StreamId to, boolean reverse, long count) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
            return meta == null ? List.of() : store.entries(at, key, meta, from, to, reverse, count);
        }
    }

    /** The stream's last ID (XREAD's {@code $}), 0-0 for an absent key. */
    public StreamId lastId(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.STREAM);
        return meta == null ? StreamId.MIN : StreamStore.header(meta).lastId();
    }

    /**
     * XREAD of one key: up to {@code count} (0: all) entries with IDs above {@code after}; empty when there
     * are none or the key is absent. With {@code ignoreOtherTypes}, a key of another type reads as empty
     * (a blocked reader keeps waiting, as in Redis) instead of failing.
     */
    public List<Entry> readAfter(byte[] key, StreamId after, long count, boolean ignoreOtherTypes) {
        StreamId from = after.next();
        if (from == null) {
            return List.of();
        }
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key);
            if (meta == null || (meta.type() != RedisType.STREAM && ignoreOtherTypes)) {
                return List.of();
            }
            if (meta.type() != RedisType.STREAM) {
                throw new io.varve.server.store.WrongTypeException();
            }
            if (StreamStore.header(meta).lastId().compareTo(from) < 0) {
                return List.of();
            }
            return store.entries(at, key, meta, from, StreamId.MAX, false, count);
        }
    }

    /**
     * XSETID: sets the stream's last ID, and optionally its entries-added counter ({@code entriesAdded} -1:
     * unchanged) and max deleted ID (null: unchanged). {@link NoSuchKeyException} for an absent key.
     */
    public void setId(byte[] key, StreamId id, long entriesAdded, StreamId maxDeleted) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STREAM);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            Header h = StreamStore.header(meta);
            if (meta.size() > 0) {
                List<Entry> top = store.entries(ReadOptions.DEFAULT, key, meta, StreamId.MIN, StreamId.MAX, true, 1);
                if (!top.isEmpty() && id.compareTo(top.getFirst().id()) < 0) {
                    throw new StreamError("ERR The ID specified in XSETID is smaller than the target stream top item");
                }
                if (entriesAdded != -1 && meta.size() > entriesAdded) {
                    throw new StreamError("ERR The entries_added specified in XSETID is smaller than the target stream length");
                }
            }
            h = h.withLastId(id);
            if (entriesAdded != -1) {
                h = h.withEntriesAdded(entriesAdded);
            }
            if (maxDeleted != null && !maxDeleted.isZero()) {
                h = h.withMaxDeletedId(maxDeleted);
            }
            WriteBatch batch = new WriteBatch();
            keyspace.putMetadata(batch, key, StreamStore.with(meta, h));
            keyspace.commit(batch);
        }
    }

    /** XINFO STREAM: the stream's counters with its first and last entries (null when empty). */
    public record Summary(long length, Header header, Entry first, Entry last) {
    }

    /** XINFO STREAM's summary; {@link NoSuchKeyException} for an absent key. */
    public Summary summary(byte[] key) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            List<Entry> first = store.entries(at, key, meta, StreamId.MIN, StreamId.MAX, false, 1);
            List<Entry> last = store.entries(at, key, meta, StreamId.MIN, StreamId.MAX, true, 1);
            return new Summary(meta.size(), StreamStore.header(meta), first.isEmpty() ? null : first.getFirst(),
                    last.isEmpty() ? null : last.getFirst());
        }
    }

    /** XINFO STREAM FULL: the counters, the first {@code count} entries (0: all) and every group in detail. */
    public record Full(long length, Header header, List<Entry> entries, List<StreamGroups.Detail> groups) {
    }

    public Full full(byte[] key, long count) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.STREAM);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            List<Entry> entries = store.entries(at, key, meta, StreamId.MIN, StreamId.MAX, false, count);
            return new Full(meta.size(), StreamStore.header(meta), entries, groups.details(at, key, meta, count));
        }
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
