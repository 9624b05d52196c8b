package io.varve.kafka.streams;

import io.varve.core.Options;

import java.util.Map;

/**
 * The one place where the memory of every Varve store of an application is set: Kafka Streams configuration
 * entries (the {@code Properties} given to {@code KafkaStreams} or {@code TopologyTestDriver}) that every store
 * reads when it opens. Each store is one Varve database, so an application's state memory is bounded by
 * {@code stores x (writeBuffer x (1 + maxImmutableMemtables) + blockCache)}; the defaults keep that to about
 * 12 MiB a store. Varve has no block cache shared between databases (see docs/kafka-streams.md, "Memory").
 */
public final class VarveStoreConfig {

    /** Bytes of writes one store's memtable takes before it is flushed to a table (64 KiB .. 1 GiB). */
    public static final String WRITE_BUFFER_BYTES = "varve.store.write.buffer.bytes";
    /** Memtables of one store that may wait for their flush before writes stall (at least 1). */
    public static final String MAX_IMMUTABLE_MEMTABLES = "varve.store.max.immutable.memtables";
    /** Bytes of decompressed table blocks one store caches (0 disables its cache). */
    public static final String BLOCK_CACHE_BYTES = "varve.store.block.cache.bytes";

    static final long DEFAULT_WRITE_BUFFER_BYTES = 4L << 20;
    static final int DEFAULT_MAX_IMMUTABLE_MEMTABLES = 1;
    static final long DEFAULT_BLOCK_CACHE_BYTES = 4L << 20;

    private VarveStoreConfig() {
    }

    /** The engine options of one store under the application's configuration {@code appConfigs}. */
    public static Options options(Map<String, ?> appConfigs) {
        long writeBuffer = longSetting(appConfigs, WRITE_BUFFER_BYTES, DEFAULT_WRITE_BUFFER_BYTES);
        int immutable = (int) longSetting(appConfigs, MAX_IMMUTABLE_MEMTABLES, DEFAULT_MAX_IMMUTABLE_MEMTABLES);
        long cache = longSetting(appConfigs, BLOCK_CACHE_BYTES, DEFAULT_BLOCK_CACHE_BYTES);
        Options defaults = Options.defaults();
        return defaults.withWriteBufferSize(writeBuffer)
                .withBlockCacheSize(cache)
                .withWriteStallTriggers(immutable, defaults.level0SlowdownWritesTrigger(),
                        defaults.level0StopWritesTrigger());
    }

    /** The most memory one store's memtables and cache may hold under {@code appConfigs}. */
    public static long perStoreMemoryBound(Map<String, ?> appConfigs) {
        long writeBuffer = longSetting(appConfigs, WRITE_BUFFER_BYTES, DEFAULT_WRITE_BUFFER_BYTES);
        long immutable = longSetting(appConfigs, MAX_IMMUTABLE_MEMTABLES, DEFAULT_MAX_IMMUTABLE_MEMTABLES);
        long cache = longSetting(appConfigs, BLOCK_CACHE_BYTES, DEFAULT_BLOCK_CACHE_BYTES);
        return writeBuffer * (1 + immutable) + cache;
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
