package io.varve.server.types;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Database;
import io.varve.server.store.HashStore;
import io.varve.server.store.KeyCopier;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Predicate;

/** Operations on keys whatever their type. Writers hold the keys' stripe locks up to their commit. */
public final class RedisKeys {

    private final Keyspace keyspace;
    /** Every collection's elements are field/value subkeys under its version, so a hash's walk copies any. */
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
        keyspace.signalWaiters(to);
        return true;
    }

    /**
     * MOVE: {@code key} leaves this database for {@code destination} if it is live here and absent there (an
     * expired key there counts as absent); returns whether it moved. Only the metadata record moves: a
     * collection's subkeys carry no database. Clients blocked on the key in {@code destination} are then
     * served.
     */
    public boolean move(byte[] key, Database destination) {
        Keyspace target = keyspace.in(destination);
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key);
            if (meta == null || target.header(key) != null) {
                return false;
            }
            WriteBatch batch = new WriteBatch();
            keyspace.deleteMetadata(batch, key);
            target.putMetadata(batch, key, meta);
            keyspace.commit(batch);
        }
        target.signalWaiters(key);
        return true;
    }

    /**
     * COPY: {@code to} of {@code destination} becomes a copy of {@code from} of this database, whatever its
     * type ({@link KeyCopier}: a collection's subkeys are copied under a fresh version), unless {@code from}
     * is not live or {@code to} exists there and {@code replace} is false; returns whether it copied. Clients
     * blocked on {@code to} in {@code destination} are then served.
     */
    public boolean copy(byte[] from, Database destination, byte[] to, boolean replace) {
        Keyspace target = keyspace.in(destination);
        KeyCopier copier = new KeyCopier(keyspace);
        try (LockStripes.Held held = keyspace.lockAll(from, to)) {
            byte[] raw = copier.liveRawMetadata(ReadOptions.DEFAULT, from);
            if (raw == null || (!replace && target.header(to) != null)) {
                return false;
            }
            WriteBatch batch = new WriteBatch();
            copier.copy(ReadOptions.DEFAULT, batch, from, raw, destination, to);
            target.commit(batch);
        }
        target.signalWaiters(to);
        return true;
    }

    /** DEL/UNLINK: deletes the live keys among {@code keys} (each counted once); returns how many. */
    public long delete(List<byte[]> keys) {
        long removed = 0;
        try (LockStripes.Held held = keyspace.lockAll(keys.toArray(new byte[0][]))) {
            WriteBatch batch = new WriteBatch();
            List<byte[]> seen = new ArrayList<>();
            for (byte[] key : keys) {
                if (seen.stream().noneMatch(k -> Arrays.equals(k, key)) && keyspace.header(key) != null) {
                    keyspace.deleteMetadata(batch, key);
                    removed++;
                }
                seen.add(key);
            }
            keyspace.commit(batch);
        }
        return removed;
    }

    /** Whether the key is live (present, not expired). */
    public boolean exists(byte[] key) {
        return keyspace.header(key) != null;
    }

    /** The type of a live key, or null. */
    public RedisType type(byte[] key) {
        Metadata meta = keyspace.header(key);
        return meta == null ? null : meta.type();
    }

    /** EXPIRE's conditions: NX (no expiry yet), XX (has one), GT and LT (later or earlier than the current). */
    public record ExpiryRules(boolean nx, boolean xx, boolean gt, boolean lt) {
    }

    /**
     * The EXPIRE family: sets the key's expiry to {@code when} (Unix milliseconds; a past time deletes it) if
     * the key is live and the rules allow; returns whether it did. A key without expiry counts as expiring
     * never, i.e. later than any time.
     */
    public boolean expireAt(byte[] key, long when, ExpiryRules rules) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key);
            if (meta == null) {
                return false;
            }
            boolean has = meta.hasExpiry();
            if ((rules.nx() && has) || (rules.xx() && !has) || (rules.gt() && (!has || when <= meta.expireAt()))
                    || (rules.lt() && has && when >= meta.expireAt())) {
                return false;
            }
            WriteBatch batch = new WriteBatch();
            if (when <= keyspace.now()) {
                keyspace.deleteMetadata(batch, key);
            } else {
                keyspace.putMetadata(batch, key, meta.withExpireAt(when));
            }
            keyspace.commit(batch);
            return true;
        }
    }

    /** TTL/PTTL: milliseconds left, -1 for a key without expiry, -2 for an absent key. */
    public long millisToLive(byte[] key) {
        Metadata meta = keyspace.header(key);
        if (meta == null) {
            return -2;
        }
        if (!meta.hasExpiry()) {
            return -1;
        }
        return Math.max(0, meta.expireAt() - keyspace.now());
    }

    /** EXPIRETIME/PEXPIRETIME: the key's expiry as Unix time in milliseconds; -2 when absent, -1 without one. */
    public long expireAtMillis(byte[] key) {
        Metadata meta = keyspace.header(key);
        if (meta == null) {
            return -2;
        }
        return meta.hasExpiry() ? meta.expireAt() : -1;
    }

    /** PERSIST: removes the key's expiry; returns whether it had one. */
    public boolean persist(byte[] key) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key);
            if (meta == null || !meta.hasExpiry()) {
                return false;
            }
            WriteBatch batch = new WriteBatch();
            keyspace.putMetadata(batch, key, meta.withExpireAt(0));
            keyspace.commit(batch);
            return true;
        }
    }

    /**
     * One SCAN step: the live keys among the next {@code count} metadata records after {@code resumeAfter}
     * (null: from the first) whose name {@code matches} accepts and whose type {@code typeMatches} accepts.
     * {@code resumeAfter} of the result is where the next step starts (an engine key, opaque to the caller),
     * null when the walk is done.
     */
    public record ScanPage(List<byte[]> keys, byte[] resumeAfter) {
    }

    /**
     * @param literalPrefix bytes every matching key starts with (empty: any), which narrows the walk
     * @param slots         the hash slots whose keys are walked (a cluster node's served slots); null: all
     */
    public ScanPage scan(byte[] resumeAfter, long count, byte[] literalPrefix, Predicate<byte[]> matches,
                         Predicate<RedisType> typeMatches, BitSet slots) {
        List<byte[]> found = new ArrayList<>();
        byte[] last = null;
        long now = keyspace.now();
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, literalPrefix)) {
            seekAfter(it, resumeAfter);
            long examined = 0;
            for (; it.valid() && examined < count; it.next(), examined++) {
                byte[] metaKey = it.key();
                last = metaKey;
                Metadata meta = Metadata.decodeHeader(it.value());
                byte[] key = KeyEncoding.userKeyOfMetadata(metaKey);
                if (meta.isExpired(now) || !typeMatches.test(meta.type()) || !matches.test(key)) {
                    continue;
                }
                found.add(key);
            }
            return new ScanPage(found, it.valid() ? last : null);
        }
    }

    /**
     * KEYS: every live key of {@code slots} (null: all) that starts with {@code literalPrefix} and that
     * {@code matches} accepts.
     */
    public List<byte[]> keys(byte[] literalPrefix, Predicate<byte[]> matches, BitSet slots) {
        List<byte[]> found = new ArrayList<>();
        long now = keyspace.now();
        try (Snapshot snapshot = keyspace.snapshot();
             DbIterator it = keyspace.metadataIterator(ReadOptions.at(snapshot), slots, literalPrefix)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = KeyEncoding.userKeyOfMetadata(it.key());
                if (!Metadata.decodeHeader(it.value()).isExpired(now) && matches.test(key)) {
                    found.add(key);
                }
            }
        }
        return found;
    }

    private static void seekAfter(DbIterator it, byte[] resumeMetaKey) {
        if (resumeMetaKey == null) {
            it.seekToFirst();
            return;
        }
        it.seek(resumeMetaKey);
        if (it.valid() && Arrays.equals(it.key(), resumeMetaKey)) {
            it.next();
        }
    }
}
