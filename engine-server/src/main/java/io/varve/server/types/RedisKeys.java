package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import io.varve.server.store.HashStore;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.Arrays;

/** Operations on keys whatever their type. Writers hold the keys' stripe locks up to their commit. */
public final class RedisKeys {

    private final Keyspace keyspace;
    private final HashStore subkeys;

    RedisKeys(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.subkeys = new HashStore(keyspace);
    }

    /**
     * RENAME/RENAMENX. A string's metadata moves in one batch; a collection's subkeys (hash fields, list
     * positions, set members) are copied under a fresh version for the new key (O(elements), as in Kvrocks)
     * and the source's subkeys become garbage as on DEL. Clients blocked on the new name are then served.
     * Returns false, changing nothing, when {@code onlyIfAbsent} and {@code to} exists (or is {@code from});
     * throws {@link NoSuchKeyException} when {@code from} is absent.
     */
    public boolean rename(byte[] from, byte[] to, boolean onlyIfAbsent) {
        try (LockStripes.Held held = keyspace.lockAll(from, to)) {
            Metadata meta = keyspace.lookup(from);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            boolean same = Arrays.equals(from, to);
            if (onlyIfAbsent && (same || keyspace.header(to) != null)) {
                return false;
            }
            if (!same) {
                WriteBatch batch = new WriteBatch();
                if (meta.type() == RedisType.STRING) {
                    keyspace.putMetadata(batch, to, meta);
                } else {
                    Metadata moved = meta.withVersion(keyspace.newVersion());
                    subkeys.forEach(ReadOptions.DEFAULT, from, meta, null, (field, value) -> {
                        subkeys.put(batch, to, moved, field, value);
                        return true;
                    });
                    keyspace.putMetadata(batch, to, moved);
                }
                keyspace.deleteMetadata(batch, from);
                keyspace.commit(batch);
            }
        }
        keyspace.blocking().signal(to);
        return true;
    }
}
