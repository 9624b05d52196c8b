package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * Set members as subkeys with empty values ({@code 's' | len | key | version | member}, see
 * {@link KeyEncoding}); the metadata holds the version and the member count, which callers keep right under
 * the key's lock. Members iterate in byte order; random picks are {@link SetPicker}'s.
 */
public final class SetStore {

    private static final byte[] EMPTY = new byte[0];

    private final Keyspace keyspace;

    public SetStore(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Metadata for a brand-new, empty set: a fresh version so no stale subkeys can show through. */
    public Metadata create() {
        return Metadata.collection(RedisType.SET, 0, keyspace.newVersion(), 0);
    }

    public boolean contains(ReadOptions options, byte[] key, Metadata meta, byte[] member) {
        return keyspace.db().get(options, keyspace.database().subkey(key, meta.version(), member)) != null;
    }

    /** Adds {@code member} to the batch; SPOP's hint for the set stops claiming it is dead. */
    public void add(WriteBatch batch, byte[] key, Metadata meta, byte[] member) {
        keyspace.setPopHints().memberAdded(meta.version(), member);
        batch.put(keyspace.database().subkey(key, meta.version(), member), EMPTY);
    }

    public void remove(WriteBatch batch, byte[] key, Metadata meta, byte[] member) {
        batch.delete(keyspace.database().subkey(key, meta.version(), member));
    }

    /** Visits members in byte order after {@code afterMember} (null: from the first) until the visitor says stop. */
    public void forEach(ReadOptions options, byte[] key, Metadata meta, byte[] afterMember, Predicate<byte[]> visitor) {
        byte[] prefix = keyspace.database().subkeyPrefix(key, meta.version());
        try (DbIterator it = keyspace.db().iterator(options.withLowerBound(prefix)
                .withUpperBound(KeyEncoding.prefixEnd(prefix)))) {
            if (afterMember == null) {
                it.seekToFirst();
            } else {
                byte[] start = keyspace.database().subkey(key, meta.version(), afterMember);
                it.seek(start);
                if (it.valid() && Arrays.equals(it.key(), start)) {
                    it.next();
                }
            }
            for (; it.valid(); it.next()) {
                if (!visitor.test(KeyEncoding.fieldOfSubkey(it.key(), prefix.length))) {
                    return;
                }
            }
        }
    }

    public List<byte[]> members(ReadOptions options, byte[] key, Metadata meta) {
        List<byte[]> out = new ArrayList<>();
        forEach(options, key, meta, null, out::add);
        return out;
    }
}
