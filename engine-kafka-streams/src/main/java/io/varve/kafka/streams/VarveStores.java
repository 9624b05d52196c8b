package io.varve.kafka.streams;

import io.varve.kafka.streams.store.StoreMetrics;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

import java.time.Duration;

/**
 * Factory of Varve store suppliers, the counterpart of Kafka's {@code Stores.persistent...Store} methods: pass
 * what these return to {@code Stores.keyValueStoreBuilder} and its siblings. To move every store of a DSL
 * topology at once, configure {@link VarveDslStoreSuppliers} instead.
 */
public final class VarveStores {

    /** The scope under which Kafka's metered layers report these stores' metrics. */
    public static final String METRICS_SCOPE = StoreMetrics.SCOPE;

    private VarveStores() {
    }

    /** A persistent key-value store of raw bytes. */
    public static KeyValueBytesStoreSupplier keyValueStore(String name) {
        return new VarveKeyValueBytesStoreSupplier(name, false);
    }

    /** A persistent key-value store whose values carry Kafka's timestamped format. */
    public static KeyValueBytesStoreSupplier timestampedKeyValueStore(String name) {
        return new VarveKeyValueBytesStoreSupplier(name, true);
    }

    /**
     * A persistent window store keeping windows for {@code retentionPeriod}, in segments of half that (at least
     * a minute), as Kafka's RocksDB window store; {@code retainDuplicates} for stream-stream joins.
     */
    public static WindowBytesStoreSupplier windowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                       boolean retainDuplicates) {
        return window(name, retentionPeriod, windowSize, retainDuplicates, false, false);
    }

    /** {@link #windowStore} whose values carry Kafka's timestamped format. */
    public static WindowBytesStoreSupplier timestampedWindowStore(String name, Duration retentionPeriod,
                                                                  Duration windowSize, boolean retainDuplicates) {
        return window(name, retentionPeriod, windowSize, retainDuplicates, true, false);
    }

    /**
     * @param emitsOnClose for a windowed aggregation emitting on window close ({@link VarveDslStoreSuppliers}):
     *                     reads see what Kafka's time-ordered window store, its store for those, sees
     */
    static WindowBytesStoreSupplier window(String name, Duration retentionPeriod, Duration windowSize,
                                           boolean retainDuplicates, boolean timestamped, boolean emitsOnClose) {
        long retention = retentionPeriod.toMillis();
        long size = windowSize.toMillis();
        if (retention < 0 || size < 0) {
            throw new IllegalArgumentException("retentionPeriod and windowSize cannot be negative");
        }
        if (size > retention) {
            throw new IllegalArgumentException("The retention period of the window store " + name
                    + " must be no smaller than its window size. Got size=[" + size + "], retention=["
                    + retention + "]");
        }
        return new VarveWindowBytesStoreSupplier(name, retention, segmentInterval(retention), size,
                retainDuplicates, timestamped, emitsOnClose);
    }

    /** A persistent session store keeping sessions for {@code retentionPeriod} after they end. */
    public static SessionBytesStoreSupplier sessionStore(String name, Duration retentionPeriod) {
        long retention = retentionPeriod.toMillis();
        if (retention < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        return new VarveSessionBytesStoreSupplier(name, retention, segmentInterval(retention));
    }

    /**
     * A persistent versioned key-value store keeping older versions for {@code historyRetention}, the
     * counterpart of Kafka's {@code Stores.persistentVersionedKeyValueStore(name, historyRetention)}, with the
     * segment interval Kafka picks for that retention.
     */
    public static VersionedBytesStoreSupplier versionedKeyValueStore(String name, Duration historyRetention) {
        long retention = nonNegativeMillis(historyRetention, "historyRetention");
        return new VarveVersionedBytesStoreSupplier(name, retention, versionedSegmentInterval(retention));
    }

    /**
     * {@link #versionedKeyValueStore(String, Duration)} with older versions filed in segments of
     * {@code segmentInterval} (by the time each stopped holding): expiry drops a whole segment, so a shorter
     * interval frees space sooner, and a read of the past seeks once per segment, so a longer one reads faster.
     */
    public static VersionedBytesStoreSupplier versionedKeyValueStore(String name, Duration historyRetention,
                                                                     Duration segmentInterval) {
        long retention = nonNegativeMillis(historyRetention, "historyRetention");
        long interval = nonNegativeMillis(segmentInterval, "segmentInterval");
        if (interval < 1) {
            throw new IllegalArgumentException("segmentInterval cannot be zero");
        }
        return new VarveVersionedBytesStoreSupplier(name, retention, interval);
    }

    /**
     * Kafka's choice for its versioned stores: a few segments for short retentions, up to about two dozen for
     * long ones, never shorter than a floor that grows with the retention.
     */
    private static long versionedSegmentInterval(long retention) {
        if (retention <= 60_000L) {
            return Math.max(retention / 3, 2_000L);
        }
        if (retention <= 300_000L) {
            return Math.max(retention / 5, 20_000L);
        }
        if (retention <= 3_600_000L) {
            return Math.max(retention / 12, 60_000L);
        }
        return Math.max(retention / 24, 300_000L);
    }

    private static long nonNegativeMillis(Duration duration, String what) {
        long millis = duration.toMillis();
        if (millis < 0) {
            throw new IllegalArgumentException(what + " cannot be negative");
        }
        return millis;
    }

    private static long segmentInterval(long retention) {
        return Math.max(retention / 2, 60_000L);
    }
}
