package io.varve.kafka.streams.store;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.core.WriteBatchWithIndex;
import io.varve.core.WriteOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * Kafka Streams' persistent versioned key-value store of raw bytes on one Varve database: what
 * {@code Stores.versionedKeyValueStoreBuilder} wraps (through Kafka's bytes adapter) with serdes, change logging
 * and metrics. The versions live in a {@link VersionHistory}; this class adds Kafka's rules around it.
 *
 * <p>Those rules are the ones of Kafka's RocksDB versioned store: the history retention doubles as grace
 * period, so a put or delete older than {@code observedStreamTime - historyRetention} is dropped (and counted
 * in the task's dropped-records sensor), and a read as of a time before that sees only the latest value. The
 * observed stream time is stored with the data, in the same write as the put that moves it, so a reopened
 * store applies the same rules as before it closed (Kafka's RocksDB store starts again from no stream time).
 * Each put is one atomic engine write. Restoration applies changelog records one by one as puts, each with
 * the record's timestamp.
 *
 * <p>Threads: the owning task's thread writes; interactive queries may read from other threads (see
 * {@link VersionHistory}); the stream time they compare against is volatile.
 */
public final class VarveVersionedStore extends DatabaseStateStore implements VersionedKeyValueStore<Bytes, byte[]> {

    private static final System.Logger LOG = System.getLogger(VarveVersionedStore.class.getName());
    private static final long NO_TIMESTAMP = -1L;

    private final long historyRetention;
    private final VersionHistory history;
    private volatile long observedStreamTime = NO_TIMESTAMP;
    private Sensor expiredRecords;
    private boolean consistencyEnabled;

    public VarveVersionedStore(String name, long historyRetention, long segmentInterval, StoreOptions options) {
        super(name, options);
        if (historyRetention < 0) {
            throw new IllegalArgumentException("historyRetention cannot be negative: " + historyRetention);
        }
        this.historyRetention = historyRetention;
        this.history = new VersionHistory(segmentInterval);
    }

    public long historyRetention() {
        return historyRetention;
    }

    /** Loads the version history's segments and the stored stream time, and finds the task's sensors. */
    @Override
    protected void loaded(StoreDatabase db, StateStoreContext context) {
        history.load(db.db());
        byte[] streamTime = db.db().get(VersionedLayout.STREAM_TIME_KEY);
        observedStreamTime = streamTime == null ? NO_TIMESTAMP : VersionedLayout.streamTimeOf(streamTime);
        if (context.metrics() instanceof StreamsMetricsImpl metrics) {
            expiredRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(),
                    context.taskId().toString(), metrics);
        }
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
    }

    @Override
    protected StateRestoreCallback restoreCallback() {
        return (RecordBatchingStateRestoreCallback) this::restoreBatch;
    }

    /** The earliest time reads may ask about and writes may still change: a history retention before now. */
    private long retentionStart() {
        long start = observedStreamTime - historyRetention;
        return start > observedStreamTime ? Long.MIN_VALUE : start;
    }

    private void dropExpired(String what) {
        if (expiredRecords != null) {
            expiredRecords.record();
        }
        LOG.log(System.Logger.Level.WARNING, "Skipping record for expired " + what + ".");
    }

    @Override
    public long put(Bytes key, byte[] value, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        StoreDatabase db = database();
        if (timestamp < retentionStart()) {
            dropExpired("put");
            return PUT_RETURN_CODE_NOT_PUT;
        }
        long validTo = write(db.db(), key.get(), value, timestamp);
        updatePosition();
        return validTo;
    }

    @Override
    public VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        StoreDatabase db = database();
        if (timestamp < retentionStart()) {
            dropExpired("delete");
            return null;
        }
        VersionedRecord<byte[]> existing = get(key, timestamp);
        write(db.db(), key.get(), null, timestamp);
        updatePosition();
        return existing;
    }

    /** Writes one point as one atomic engine write, moving stream time and dropping what that expires. */
    private long write(Db db, byte[] key, byte[] value, long timestamp) {
        WriteBatch batch = new WriteBatch();
        if (timestamp > observedStreamTime) {
            observedStreamTime = timestamp;
            batch.put(VersionedLayout.STREAM_TIME_KEY, VersionedLayout.streamTimeValue(timestamp));
            history.dropSegmentsBefore(history.segmentId(retentionStart()), batch);
        }
        long next = history.put(VersionEdits.into(db, batch), key, value, timestamp);
        db.write(batch, WriteOptions.DEFAULT);
        return next == VersionHistory.NO_NEXT_POINT ? PUT_RETURN_CODE_VALID_TO_UNDEFINED : next;
    }

    @Override
    public VersionedRecord<byte[]> get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return history.latest(database().db(), key.get());
    }

    @Override
    public VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        Db db = database().db();
        if (asOfTimestamp < retentionStart()) {
            // Past the history retention only the latest value, which never expires, still answers.
            VersionedRecord<byte[]> latest = history.latest(db, key.get());
            return latest != null && latest.timestamp() <= asOfTimestamp ? latest : null;
        }
        return history.asOf(db, key.get(), asOfTimestamp);
    }

    /**
     * The values of {@code key} that held at some time in {@code [fromTimestamp, toTimestamp]} within the
     * history retention (or the latest value), newest first unless {@code order} is ascending: what
     * {@link #get(Bytes, long)} answers for some time in the range.
     */
    public VersionedRecordIterator<byte[]> get(Bytes key, long fromTimestamp, long toTimestamp, ResultOrder order) {
        Objects.requireNonNull(key, "key cannot be null");
        Db db = database().db();
        long visibleFrom = retentionStart();
        List<VersionedRecord<byte[]>> versions;
        if (toTimestamp < visibleFrom) {
            VersionedRecord<byte[]> latest = history.latest(db, key.get());
            versions = latest != null && latest.timestamp() <= toTimestamp && fromTimestamp <= toTimestamp
                    ? List.of(latest) : List.of();
        } else {
            versions = history.versions(db, key.get(), Math.max(fromTimestamp, visibleFrom), toTimestamp,
                    order == ResultOrder.ASCENDING);
        }
        Iterator<VersionedRecord<byte[]>> it = versions.iterator();
        return new VersionedRecordIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public VersionedRecord<byte[]> next() {
                return it.next();
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * Applies changelog records in order, each as the put that logged it, skipping what had expired, all in one
     * engine write: each put reads the ones before it through the pending batch, and the segments the batch's
     * stream time expires are dropped by a range deletion at its end. Kafka's restoration calls it through the
     * callback the store registers in {@link #init}.
     */
    public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        Db db = database().db();
        WriteBatchWithIndex pending = new WriteBatchWithIndex();
        VersionEdits edits = VersionEdits.through(db, pending);
        long streamTimeBefore = observedStreamTime;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.timestamp() < retentionStart()) {
                continue;
            }
            ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(record, consistencyEnabled, getPosition());
            observedStreamTime = Math.max(observedStreamTime, record.timestamp());
            history.put(edits, record.key(), record.value(), record.timestamp());
        }
        WriteBatch batch = pending.writeBatch();
        if (observedStreamTime > streamTimeBefore) {
            batch.put(VersionedLayout.STREAM_TIME_KEY, VersionedLayout.streamTimeValue(observedStreamTime));
            history.dropSegmentsBefore(history.segmentId(retentionStart()), batch);
        }
        if (batch.count() > 0) {
            db.write(batch, WriteOptions.DEFAULT);
        }
    }

    /** The observed stream time: the newest timestamp written, or -1 before the first write. */
    public long observedStreamTime() {
        return observedStreamTime;
    }

    /**
     * Answers Kafka's basic queries through {@code StoreQueryUtils}, except the multi-version key query, which
     * Kafka's helper answers only for its RocksDB store, so it is answered here.
     */
    @Override
    @SuppressWarnings("unchecked")
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        if (!(query instanceof MultiVersionedKeyQuery<?, ?> versionsQuery)) {
            return super.query(query, positionBound, config);
        }
        int partition = context().taskId().partition();
        Position position = getPosition();
        if (!StoreQueryUtils.isPermitted(position, positionBound, partition)) {
            return QueryResult.notUpToBound(position, positionBound, partition);
        }
        long from = versionsQuery.fromTime().map(Instant::toEpochMilli).orElse(Long.MIN_VALUE);
        long to = versionsQuery.toTime().map(Instant::toEpochMilli).orElse(Long.MAX_VALUE);
        QueryResult<R> result = (QueryResult<R>) QueryResult.forResult(
                get((Bytes) versionsQuery.key(), from, to, versionsQuery.resultOrder()));
        if (config.isCollectExecutionInfo()) {
            result.addExecutionInfo("Handled in " + getClass() + " with multi-version key query");
        }
        result.setPosition(position.copy());
        return result;
    }
}
