package io.varve.kafka.streams;

import io.varve.core.SharedBlockCache;
import io.varve.core.WriteBufferManager;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The block cache and the memtable budget every Varve store of a JVM shares. There is one of each per configured
 * size: every store of an application reads the same {@link VarveStoreConfig#JVM_BLOCK_CACHE_BYTES} and
 * {@link VarveStoreConfig#JVM_WRITE_BUFFER_BYTES}, so they all land on the same two instances, and so do the
 * stores of other applications in the JVM configured alike. An application configured with other figures gets
 * instances of its own (the bound is then per distinct configuration). Both hold only what open stores put in
 * them — a closed store's blocks and memtables leave — so they are never closed.
 */
public final class VarveMemory {

    private static final Map<Long, SharedBlockCache> CACHES = new ConcurrentHashMap<>();
    private static final Map<Long, WriteBufferManager> BUDGETS = new ConcurrentHashMap<>();

    private VarveMemory() {
    }

    /** The JVM's shared block cache of {@code capacityBytes}. */
    public static SharedBlockCache blockCache(long capacityBytes) {
        return CACHES.computeIfAbsent(capacityBytes, SharedBlockCache::new);
    }

    /** The JVM's shared memtable budget of {@code budgetBytes}. */
    public static WriteBufferManager writeBuffers(long budgetBytes) {
        return BUDGETS.computeIfAbsent(budgetBytes, WriteBufferManager::new);
    }

    /** The shared block cache the stores of an application configured with {@code appConfigs} use. */
    public static SharedBlockCache blockCache(Map<String, ?> appConfigs) {
        return blockCache(VarveStoreConfig.jvmBlockCacheBytes(appConfigs));
    }

    /** The shared memtable budget the stores of an application configured with {@code appConfigs} use. */
    public static WriteBufferManager writeBuffers(Map<String, ?> appConfigs) {
        return writeBuffers(VarveStoreConfig.jvmWriteBufferBytes(appConfigs));
    }
}
