package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.function.BiPredicate;

/**
 * Hash fields as subkeys ({@code 's' | len | key | version | field}, see {@link KeyEncoding}). The hash's
 * metadata holds its version and field count; callers keep that count right under the key's lock.
 */
public final class HashStore {

    private final Keyspace keyspace;

    public HashStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Metadata for a brand-new, empty hash: a fresh version so no stale subkeys can show through. */
    public Metadata create() {
        return Metadata.collection(RedisType.HASH, 0, keyspace.newVersion(), 0);
    }

    public byte[] get(ReadOptions options, byte[] key, Metadata meta, byte[] field) {
        return keyspace.db().get(options, keyspace.database().subkey(key, meta.version(), field));
    }

    public byte[] get(byte[] key, Metadata meta, byte[] field) {
        return get(ReadOptions.DEFAULT, key, meta, field);
    }

    public void put(WriteBatch batch, byte[] key, Metadata meta, byte[] field, byte[] value) {
        batch.put(keyspace.database().subkey(key, meta.version(), field), value);
    }

    public void delete(WriteBatch batch, byte[] key, Metadata meta, byte[] field) {
        batch.delete(keyspace.database().subkey(key, meta.version(), field));
    }

    /**
     * Visits fields in byte order, starting after {@code afterField} (null: from the first), until the visitor
     * returns false or the fields run out.
     */
    public void forEach(ReadOptions options, byte[] key, Metadata meta, byte[] afterField,
                        BiPredicate<byte[], byte[]> visitor) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(prefix)
                .withUpperBound(KeyEncoding.prefixEnd(prefix)))) {
            if (afterField == null) {
                it.seekToFirst();
            } else {
                byte[] start = keyspace.database().subkey(key, meta.version(), afterField);
                it.seek(start);
                if (it.valid() && java.util.Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            for (; it.valid(); it.next()) {
                if (!visitor.test(KeyEncoding.fieldOfSubkey(it.key(), prefix.length), it.value())) {
                    return;
                }
            }
        }
    }
}
