package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.HashStore;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/**
 * The hash type: metadata (version, field count) plus one subkey per field ({@link HashStore}). Writers hold
 * the key's stripe lock from the metadata lookup to the commit and write fields and metadata in one batch,
 * so the count always matches the fields; whole-hash reads run at a snapshot so they see one version of
 * both. A key of another type fails with {@link io.varve.server.store.WrongTypeException}.
 */
public final class RedisHashes {

    private final Keyspace keyspace;
    private final HashStore store;

    RedisHashes(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.store = new HashStore(keyspace);
    }

    /**
     * HSET/HSETNX: writes the field/value pairs (fields at even positions). With {@code onlyIfAbsent}, writes
     * nothing if any field exists. Returns how many fields were added (not updated).
     */
    public long set(byte[] key, List<byte[]> fieldsAndValues, boolean onlyIfAbsent) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.HASH);
            if (meta == null) {
                meta = store.create();
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> addedHere = new HashSet<>();
            long added = 0;
            for (int i = 0; i + 1 < fieldsAndValues.size(); i += 2) {
                byte[] field = fieldsAndValues.get(i);
                boolean exists = addedHere.contains(ByteBuffer.wrap(field)) || store.get(key, meta, field) != null;
                if (exists && onlyIfAbsent) {
                    return 0;
                }
                if (!exists) {
                    added++;
                    addedHere.add(ByteBuffer.wrap(field));
                }
                store.put(batch, key, meta, field, fieldsAndValues.get(i + 1));
            }
            keyspace.putMetadata(batch, key, meta.withSize(meta.size() + added));
            keyspace.commit(batch);
            return added;
        }
    }

    /** The field's value, or null when the hash or the field is absent. */
    public byte[] get(byte[] key, byte[] field) {
        Metadata meta = keyspace.lookup(key, RedisType.HASH);
        return meta == null ? null : store.get(key, meta, field);
    }

    /** HMGET: the fields' values (null where absent), read at one snapshot. */
    public List<byte[]> getAll(byte[] key, List<byte[]> fields) {
        List<byte[]> out = new ArrayList<>(fields.size());
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.HASH);
            for (byte[] field : fields) {
                out.add(meta == null ? null : store.get(at, key, meta, field));
            }
        }
        return out;
    }

    /** HLEN: the number of fields, 0 for an absent key. */
    public long length(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.HASH);
        return meta == null ? 0 : meta.size();
    }

    /** HDEL: removes the fields that exist (the key goes with its last field); returns how many. */
    public long delete(byte[] key, List<byte[]> fields) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.HASH);
            if (meta == null) {
                return 0;
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> removedHere = new HashSet<>();
            long removed = 0;
            for (byte[] field : fields) {
                if (!removedHere.contains(ByteBuffer.wrap(field)) && store.get(key, meta, field) != null) {
                    store.delete(batch, key, meta, field);
                    removedHere.add(ByteBuffer.wrap(field));
                    removed++;
                }
            }
            if (removed > 0) {
                long left = meta.size() - removed;
                if (left <= 0) {
                    keyspace.deleteMetadata(batch, key);
                } else {
                    keyspace.putMetadata(batch, key, meta.withSize(left));
                }
                keyspace.commit(batch);
            }
            return removed;
        }
    }

    /**
     * Read-modify-write of one field under the key's lock (HINCRBY, HINCRBYFLOAT): {@code change} gets the
     * current value (null if absent) and returns the new one, or throws to write nothing. Returns the new value.
     */
    public byte[] update(byte[] key, byte[] field, UnaryOperator<byte[]> change) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.HASH);
            if (meta == null) {
                meta = store.create();
            }
            byte[] current = store.get(key, meta, field);
            byte[] updated = change.apply(current);
            WriteBatch batch = new WriteBatch();
            store.put(batch, key, meta, field, updated);
            if (current == null || meta.size() == 0) {
                keyspace.putMetadata(batch, key, meta.withSize(meta.size() + (current == null ? 1 : 0)));
            }
            keyspace.commit(batch);
            return updated;
        }
    }

    /**
     * Visits fields and values in field byte order at one snapshot, starting after {@code afterField} (null:
     * from the first), until the visitor returns false. Returns false if the key is absent.
     */
    public boolean forEach(byte[] key, byte[] afterField, BiPredicate<byte[], byte[]> visitor) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.HASH);
            if (meta == null) {
                return false;
            }
            store.forEach(at, key, meta, afterField, visitor);
            return true;
        }
    }
}
