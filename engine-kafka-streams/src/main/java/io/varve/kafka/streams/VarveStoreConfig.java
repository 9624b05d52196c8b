package io.varve.kafka.streams;

import io.varve.core.Options;

import java.util.Map;

/**
 * The one place where the memory of every Varve store is set: Kafka Streams configuration entries (the
 * {@code Properties} given to {@code KafkaStreams} or {@code TopologyTestDriver}) that every store reads when it
 * opens. All stores of an application share one block cache and one memtable budget ({@link VarveMemory}), so
 * their memory is bounded by one figure for the JVM, {@link #memoryBound}: block cache plus write buffers
 * (see docs/kafka-streams.md, "Memory").
 */
public final class VarveStoreConfig {

    /** Bytes of decompressed table blocks all Varve stores of the JVM cache together (at least 1). */
    public static final String JVM_BLOCK_CACHE_BYTES = "varve.jvm.block.cache.bytes";
    /** Bytes of memtables all Varve stores of the JVM hold together before writers wait for flushes (at least 1). */
    public static final String JVM_WRITE_BUFFER_BYTES = "varve.jvm.write.buffer.bytes";
    /** Bytes of writes one store's memtable takes before it is flushed to a table (64 KiB .. 1 GiB). */
    public static final String WRITE_BUFFER_BYTES = "varve.store.write.buffer.bytes";
    /** Memtables of one store that may wait for their flush before its writes stall (at least 1). */
    public static final String MAX_IMMUTABLE_MEMTABLES = "varve.store.max.immutable.memtables";

    /**
     * Whether a store's writes also go to a write-ahead log ({@code true}/{@code false}, default {@code false}).
     * Off, as Kafka runs its RocksDB stores: the changelog topic holds the data durably, and each flush of the
     * store's memtables writes the data and the changelog offsets it reaches together, so after a crash the store
     * restores from the changelog what followed its last flush. On, a process crash loses nothing and restores
     * nothing; each write costs a copy into the log (see docs/kafka-streams.md, "Durability").
     */
    public static final String WRITE_AHEAD_LOG = "varve.store.write.ahead.log";

    /**
     * Where each store publishes its engine meters (docs/operations.md lists them) when Micrometer is on the class
     * path: a {@code MeterRegistry} instance, {@code "global"} (the default: Micrometer's global registry) or
     * {@code "none"}. Each store's meters carry its database directory as their {@code db} tag.
     */
    public static final String METER_REGISTRY = "varve.micrometer.registry";

    static final long DEFAULT_JVM_BLOCK_CACHE_BYTES = 64L << 20;
    static final long DEFAULT_JVM_WRITE_BUFFER_BYTES = 64L << 20;
    static final long DEFAULT_WRITE_BUFFER_BYTES = 4L << 20;
    static final int DEFAULT_MAX_IMMUTABLE_MEMTABLES = 1;

    private VarveStoreConfig() {
    }

    /** The engine options of one store under the application's configuration {@code appConfigs}. */
    public static Options options(Map<String, ?> appConfigs) {
        long writeBuffer = longSetting(appConfigs, WRITE_BUFFER_BYTES, DEFAULT_WRITE_BUFFER_BYTES);
        int immutable = (int) longSetting(appConfigs, MAX_IMMUTABLE_MEMTABLES, DEFAULT_MAX_IMMUTABLE_MEMTABLES);
        Options defaults = Options.defaults();
        Options options = defaults.withWriteBufferSize(writeBuffer)
                .withBlockCache(VarveMemory.blockCache(appConfigs))
                .withWriteBufferManager(VarveMemory.writeBuffers(appConfigs))
                .withWriteStallTriggers(immutable, defaults.level0SlowdownWritesTrigger(),
                        defaults.level0StopWritesTrigger())
                .withWriteAheadLog(booleanSetting(appConfigs, WRITE_AHEAD_LOG, false));
        return StoreMeters.apply(options, appConfigs);
    }

    /**
     * The most memory the memtables and block cache of all Varve stores configured with {@code appConfigs} hold
     * together, whatever their number — apart from one record per stream thread being written when the budget
     * fills, and what open iterators pin.
     */
    public static long memoryBound(Map<String, ?> appConfigs) {
        return jvmBlockCacheBytes(appConfigs) + jvmWriteBufferBytes(appConfigs);
    }

    static long jvmBlockCacheBytes(Map<String, ?> appConfigs) {
        return positive(appConfigs, JVM_BLOCK_CACHE_BYTES, DEFAULT_JVM_BLOCK_CACHE_BYTES);
    }

    static long jvmWriteBufferBytes(Map<String, ?> appConfigs) {
        return positive(appConfigs, JVM_WRITE_BUFFER_BYTES, DEFAULT_JVM_WRITE_BUFFER_BYTES);
    }

    private static long positive(Map<String, ?> configs, String name, long fallback) {
        long value = longSetting(configs, name, fallback);
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be a positive number of bytes: " + value);
        }
        return value;
    }

    private static boolean booleanSetting(Map<String, ?> configs, String name, boolean fallback) {
        Object value = configs == null ? null : configs.get(name);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        String text = value.toString().trim();
        if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(name + " must be true or false: " + value);
    }

    private static long longSetting(Map<String, ?> configs, String name, long fallback) {
        Object value = configs == null ? null : configs.get(name);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number number) {
            return number.longValue();
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number of bytes: " + value, e);
        }
    }
}
