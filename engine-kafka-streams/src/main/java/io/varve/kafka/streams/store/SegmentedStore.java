package io.varve.kafka.streams.store;

import io.varve.core.DbIterator;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.HasNextCondition;
import org.apache.kafka.streams.state.internals.SegmentedBytesStore.KeySchema;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Time-segmented storage of a window or session store, in one Varve database. Every key is stored behind the
 * 8-byte big-endian id of its segment ({@code timestamp / segmentInterval}, the timestamp being what Kafka's key
 * schema names the segment timestamp: a window's start, a session's end), so a segment is one contiguous key
 * range and segments sort by time. As stream time advances, the segments wholly older than the retention period
 * are dropped together by one range deletion: a single tombstone whatever their size, which compaction then
 * reclaims. Kafka's RocksDB stores use a RocksDB instance per segment instead; a column family per segment
 * would work here too, but costs a manifest edit and a family's memtable per segment for no gain in reads.
 *
 * <p>Expiry follows Kafka's RocksDB segmented store exactly, so topologies behave the same on either: a record
 * whose segment is already expired is dropped (counted in the task's dropped-records sensor); reads hide records
 * older than {@code observedStreamTime - retention + 1} (or {@code - retention}, where Kafka's time-ordered window
 * store does). The observed stream time lives in memory and is rebuilt
 * by new records and restoration, as in Kafka.
 *
 * <p>Threads: only the owning task's thread writes and moves stream time; reads may come from query threads,
 * which see the set of live segments through a concurrent set.
 */
public final class SegmentedStore implements BatchingStateRestoreCallback {

    static final int SEGMENT_PREFIX = Long.BYTES;
    private static final System.Logger LOG = System.getLogger(SegmentedStore.class.getName());

    private final String name;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final KeySchema schema;
    private final boolean sessions;
    private final long oldestVisibleAge;
    private final StoreOptions options;
    private final NavigableSet<Long> liveSegments = new ConcurrentSkipListSet<>();
    private volatile StoreDatabase database;
    private volatile long observedStreamTime = -1;
    private Sensor expiredRecords;

    /**
     * @param sessions whether the schema is Kafka's session schema: a time-range fetch then searches every
     *                 segment from its lower end on (a session ending after the range can still overlap it), and
     *                 a range whose upper end precedes its lower end is still searched, as Kafka's RocksDB
     *                 session store does
     * @param retentionEdgeVisible whether reads still see a record whose segment timestamp is exactly the
     *                 retention period behind stream time, as Kafka's time-ordered window store (the store of
     *                 windowed aggregations emitting on window close) does; its key-ordered stores hide it
     */
    public SegmentedStore(String name, long retentionPeriod, long segmentInterval, KeySchema schema,
                          boolean sessions, boolean retentionEdgeVisible, StoreOptions options) {
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval must be positive: " + segmentInterval);
        }
        this.name = name;
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.schema = schema;
        this.sessions = sessions;
        this.oldestVisibleAge = retentionEdgeVisible ? retentionPeriod : retentionPeriod - 1;
        this.options = options;
    }

    public void init(StateStoreContext context, StateStore root) {
        Path dir = context.stateDir().toPath().resolve(VarveStateStore.STATE_SUBDIRECTORY).resolve(name);
        StoreDatabase db = StoreDatabase.open(context, name, dir, options.forApplication(context.appConfigs()));
        liveSegments.clear();
        loadSegments(db);
        this.database = db;
        if (context.metrics() instanceof StreamsMetricsImpl metrics) {
            expiredRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(),
                    context.taskId().toString(), metrics);
        }
        context.register(root, this);
    }

    /** Finds the segments present by hopping from one segment prefix to the next. */
    private void loadSegments(StoreDatabase db) {
        try (DbIterator it = db.db().iterator()) {
            it.seekToFirst();
            while (it.valid()) {
                long id = ByteBuffer.wrap(it.key(), 0, SEGMENT_PREFIX).getLong();
                liveSegments.add(id);
                if (id == Long.MAX_VALUE) {
                    break;
                }
                it.seek(segmentPrefix(id + 1));
            }
        }
    }

    public StoreDatabase database() {
        StoreDatabase db = database;
        if (db == null) {
            throw new InvalidStateStoreException("Store " + name + " is not initialized");
        }
        return db;
    }

    private StoreDatabase open() {
        StoreDatabase db = database();
        db.checkOpen();
        return db;
    }

    long segmentId(long timestamp) {
        return timestamp / segmentInterval;
    }

    static byte[] segmentPrefix(long segmentId) {
        return ByteBuffer.allocate(SEGMENT_PREFIX).putLong(segmentId).array();
    }

    static byte[] physicalKey(long segmentId, byte[] schemaKey) {
        return ByteBuffer.allocate(SEGMENT_PREFIX + schemaKey.length).putLong(segmentId).put(schemaKey).array();
    }

    static Bytes stripSegment(Bytes physical) {
        byte[] key = physical.get();
        return Bytes.wrap(Arrays.copyOfRange(key, SEGMENT_PREFIX, key.length));
    }

    /**
     * Advances stream time to {@code timestamp}, drops the segments it expires, and returns the physical key of
     * {@code schemaKey}, or null (after counting it as dropped) when its segment is already expired.
     */
    private byte[] admit(Bytes schemaKey, StoreDatabase db) {
        long timestamp = schema.segmentTimestamp(schemaKey);
        observedStreamTime = Math.max(observedStreamTime, timestamp);
        long segmentId = segmentId(timestamp);
        long minLiveSegment = segmentId(observedStreamTime - retentionPeriod);
        dropSegmentsBefore(minLiveSegment, db);
        if (segmentId < minLiveSegment) {
            if (expiredRecords != null) {
                expiredRecords.record();
            }
            LOG.log(System.Logger.Level.WARNING, "Skipping record for expired segment.");
            return null;
        }
        liveSegments.add(segmentId);
        return physicalKey(segmentId, schemaKey.get());
    }

    private void dropSegmentsBefore(long minLiveSegment, StoreDatabase db) {
        if (liveSegments.isEmpty() || liveSegments.first() >= minLiveSegment) {
            return;
        }
        db.db().deleteRange(segmentPrefix(liveSegments.first()), segmentPrefix(minLiveSegment));
        liveSegments.headSet(minLiveSegment).clear();
    }

    /** Writes {@code value} under {@code schemaKey}; a null value deletes it. */
    public void put(Bytes schemaKey, byte[] value) {
        StoreDatabase db = open();
        byte[] key = admit(schemaKey, db);
        if (key == null) {
            return;
        }
        if (value == null) {
            db.db().delete(key);
        } else {
            db.db().put(key, value);
        }
    }

    public void remove(Bytes schemaKey) {
        StoreDatabase db = open();
        long segmentId = segmentId(schema.segmentTimestamp(schemaKey));
        if (liveSegments.contains(segmentId)) {
            db.db().delete(physicalKey(segmentId, schemaKey.get()));
        }
    }

    public byte[] get(Bytes schemaKey) {
        StoreDatabase db = open();
        long timestamp = schema.segmentTimestamp(schemaKey);
        if (timestamp < oldestVisible()) {
            return null;
        }
        long segmentId = segmentId(timestamp);
        return liveSegments.contains(segmentId) ? db.db().get(physicalKey(segmentId, schemaKey.get())) : null;
    }

    /** The oldest segment timestamp reads see: older records wait for their segment to be dropped. */
    private long oldestVisible() {
        return observedStreamTime - oldestVisibleAge;
    }

    private long actualFrom(long from) {
        return Math.max(from, oldestVisible());
    }

    /** Entries of record key {@code key} whose segment timestamps the schema places in {@code [from, to]}. */
    public KeyValueIterator<Bytes, byte[]> fetch(Bytes key, long from, long to, boolean forward) {
        open();
        long actualFrom = actualFrom(from);
        if (!sessions && to < actualFrom) {
            return ByteRangeIterator.empty();
        }
        return new SegmentIterator(this, segmentsToSearch(actualFrom, to, forward),
                schema.lowerRangeFixedSize(key, actualFrom).get(), schema.upperRangeFixedSize(key, to).get(),
                schema.hasNextCondition(key, key, actualFrom, to, forward), forward);
    }

    /** Entries of record keys in {@code [keyFrom, keyTo]} (null: unbounded) in the time range. */
    public KeyValueIterator<Bytes, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long from, long to, boolean forward) {
        open();
        if (KeyRanges.invalid(keyFrom == null ? null : keyFrom.get(), keyTo == null ? null : keyTo.get())) {
            return ByteRangeIterator.empty();
        }
        long actualFrom = actualFrom(from);
        if (!sessions && to < actualFrom) {
            return ByteRangeIterator.empty();
        }
        byte[] lower = keyFrom == null ? null : schema.lowerRange(keyFrom, actualFrom).get();
        byte[] upper = keyTo == null ? null : schema.upperRange(keyTo, to).get();
        return new SegmentIterator(this, segmentsToSearch(actualFrom, to, forward), lower, upper,
                schema.hasNextCondition(keyFrom, keyTo, actualFrom, to, forward), forward);
    }

    /** Every key whose segment timestamp lies in {@code [from, to]}. */
    public KeyValueIterator<Bytes, byte[]> fetchAll(long from, long to, boolean forward) {
        open();
        long actualFrom = actualFrom(from);
        if (!sessions && to < actualFrom) {
            return ByteRangeIterator.empty();
        }
        return new SegmentIterator(this, segments(actualFrom, to, forward), null, null,
                schema.hasNextCondition(null, null, actualFrom, to, forward), forward);
    }

    /**
     * Every key whose segment timestamp lies in {@code [from, to]}, whatever the schema's own time condition and
     * whatever the retention hides from other reads (only dropped segments are gone): a session store's
     * sessions by end time, as Kafka's time-ordered session store finds them for emitting on window close.
     * Segment by segment in time order, by key within a segment.
     */
    public KeyValueIterator<Bytes, byte[]> fetchBySegmentTimestamp(long from, long to, boolean forward) {
        open();
        if (to < from) {
            return ByteRangeIterator.empty();
        }
        HasNextCondition inRange = iterator -> {
            while (iterator.hasNext()) {
                long timestamp = schema.segmentTimestamp(iterator.peekNextKey());
                if (timestamp >= from && timestamp <= to) {
                    return true;
                }
                iterator.next();
            }
            return false;
        };
        return new SegmentIterator(this, segments(from, to, forward), null, null, inRange, forward);
    }

    public KeyValueIterator<Bytes, byte[]> all(boolean forward) {
        open();
        long actualFrom = actualFrom(0);
        return new SegmentIterator(this, segments(actualFrom, Long.MAX_VALUE, forward), null, null,
                schema.hasNextCondition(null, null, actualFrom, Long.MAX_VALUE, forward), forward);
    }

    private List<Long> segmentsToSearch(long from, long to, boolean forward) {
        return segments(from, sessions ? Long.MAX_VALUE : to, forward);
    }

    private List<Long> segments(long from, long to, boolean forward) {
        long first = segmentId(Math.max(0, from));
        long last = segmentId(to);
        if (first > last) {
            return List.of();
        }
        NavigableSet<Long> range = liveSegments.subSet(first, true, last, true);
        return new ArrayList<>(forward ? range : range.descendingSet());
    }

    /** One engine scan of segment {@code segmentId} over schema keys in {@code [lower, upper]} (null: open). */
    KeyValueIterator<Bytes, byte[]> scanSegment(long segmentId, byte[] lower, byte[] upper, boolean forward) {
        StoreDatabase db = open();
        byte[] start = lower == null ? segmentPrefix(segmentId) : physicalKey(segmentId, lower);
        byte[] end = upper == null
                ? (segmentId == Long.MAX_VALUE ? null : segmentPrefix(segmentId + 1))
                : KeyRanges.successor(physicalKey(segmentId, upper));
        return new ByteRangeIterator(db, start, end, forward);
    }

    /**
     * Applies a batch of changelog records as one engine write, moving stream time as {@link #put} does. A
     * record whose segment a later record of the same batch expires is left out, since the range deletion of
     * that segment is written before the batch.
     */
    @Override
    public void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        StoreDatabase db = open();
        List<KeyValue<byte[], byte[]>> admitted = new ArrayList<>(records.size());
        for (KeyValue<byte[], byte[]> record : records) {
            byte[] key = admit(Bytes.wrap(record.key), db);
            if (key != null) {
                admitted.add(KeyValue.pair(key, record.value));
            }
        }
        byte[] firstLive = segmentPrefix(Math.max(0, segmentId(observedStreamTime - retentionPeriod)));
        WriteBatch batch = new WriteBatch();
        for (KeyValue<byte[], byte[]> record : admitted) {
            if (Arrays.compareUnsigned(record.key, 0, SEGMENT_PREFIX, firstLive, 0, SEGMENT_PREFIX) < 0) {
                continue;
            }
            if (record.value == null) {
                batch.delete(record.key);
            } else {
                batch.put(record.key, record.value);
            }
        }
        if (batch.count() > 0) {
            db.db().write(batch, WriteOptions.DEFAULT);
        }
    }

    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        open().commit(changelogOffsets);
    }

    public Long committedOffset(TopicPartition partition) {
        return open().committedOffset(partition);
    }

    public boolean isOpen() {
        StoreDatabase db = database;
        return db != null && db.isOpen();
    }

    public void close() {
        StoreDatabase db = database;
        if (db != null) {
            db.close();
        }
    }
}
