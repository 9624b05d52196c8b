package io.varve.server.types;

import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.types.hyperloglog.HyperLogLog;

import java.util.List;
import java.util.function.IntSupplier;

/**
 * HyperLogLogs: strings in Redis's HLL representation ({@link HyperLogLog}), so GET returns bytes redis-server
 * accepts and a string copied from redis-server counts on here. Each operation holds its keys' stripe locks
 * from the read to the commit; an edited HLL keeps its key's expiry, as an edited string does.
 */
public final class RedisHyperLogLogs {

    private final Keyspace keyspace;
    private final RedisStrings strings;
    private final IntSupplier sparseMaxBytes;

    RedisHyperLogLogs(Keyspace keyspace, RedisStrings strings, IntSupplier sparseMaxBytes) {
        this.keyspace = keyspace;
        this.strings = strings;
        this.sparseMaxBytes = sparseMaxBytes;
    }

    /** The HLL at {@code key}, or null if absent; WRONGTYPE for other types or strings that are no HLL. */
    private HyperLogLog read(Metadata meta) {
        return meta == null ? null : HyperLogLog.of(meta.value());
    }

    private void write(byte[] key, HyperLogLog hll, Metadata previous) {
        WriteBatch batch = new WriteBatch();
        strings.stage(batch, key, hll.toBytes(), previous == null ? 0 : previous.expireAt());
        keyspace.commit(batch);
    }

    /** PFADD: whether the key was created or a register grew (then the cached cardinality goes stale). */
    public boolean add(byte[] key, List<byte[]> elements) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            HyperLogLog hll = meta == null ? HyperLogLog.empty() : read(meta);
            boolean updated = meta == null;
            int maxBytes = sparseMaxBytes.getAsInt();
            for (byte[] element : elements) {
                updated |= hll.add(element, maxBytes);
            }
            if (updated) {
                hll.invalidateCache();
                write(key, hll, meta);
            }
            return updated;
        }
    }

    /**
     * PFCOUNT of one key: the cached cardinality, or a fresh estimate, which is cached in the string when
     * {@code cacheWriteBack} (as redis-server does; a replica serving reads leaves the value as it is).
     */
    public long count(byte[] key, boolean cacheWriteBack) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            if (meta == null) {
                return 0;
            }
            HyperLogLog hll = read(meta);
            long cached = hll.cachedCardinality();
            if (cached >= 0) {
                return cached;
            }
            long card = hll.estimate();
            if (cacheWriteBack) {
                hll.cacheCardinality(card);
                write(key, hll, meta);
            }
            return card;
        }
    }

    /** PFCOUNT of several keys: the cardinality of their union, absent keys counting as empty; writes nothing. */
    public long countUnion(List<byte[]> keys) {
        byte[] max = new byte[1 << 14];
        for (byte[] key : keys) {
            HyperLogLog hll = read(keyspace.lookup(key, RedisType.STRING));
            if (hll != null) {
                hll.mergeInto(max);
            }
        }
        return HyperLogLog.estimate(max);
    }

    /**
     * PFMERGE: raises {@code destination}'s registers (created if absent) to the highest of every source's and
     * its own; dense if any input was.
     */
    public void merge(byte[] destination, List<byte[]> sources) {
        byte[][] locked = sources.toArray(new byte[sources.size() + 1][]);
        locked[sources.size()] = destination;
        try (LockStripes.Held held = keyspace.lockAll(locked)) {
            byte[] max = new byte[1 << 14];
            boolean dense = false;
            Metadata destinationMeta = keyspace.lookup(destination, RedisType.STRING);
            HyperLogLog target = read(destinationMeta);
            if (target != null) {
                dense = target.isDense();
                target.mergeInto(max);
            }
            for (byte[] source : sources) {
                HyperLogLog hll = read(keyspace.lookup(source, RedisType.STRING));
                if (hll != null) {
                    dense |= hll.isDense();
                    hll.mergeInto(max);
                }
            }
            if (target == null) {
                target = HyperLogLog.empty();
            }
            if (dense) {
                target.toDense();
            }
            int maxBytes = sparseMaxBytes.getAsInt();
            for (int i = 0; i < max.length; i++) {
                if (max[i] != 0) {
                    target.raise(i, max[i], maxBytes);
                }
            }
            target.invalidateCache();
            write(destination, target, destinationMeta);
        }
    }

    /** The HLL at {@code key} for PFDEBUG, or null if absent. */
    public HyperLogLog inspect(byte[] key) {
        return read(keyspace.lookup(key, RedisType.STRING));
    }

    /** PFDEBUG TODENSE / GETREG: makes the HLL dense; returns it (null if absent) and whether it changed. */
    public HyperLogLog makeDense(byte[] key, boolean[] converted) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.STRING);
            HyperLogLog hll = read(meta);
            if (hll != null && hll.toDense()) {
                converted[0] = true;
                write(key, hll, meta);
            }
            return hll;
        }
    }
}
