package io.varve.server.types;

import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * String writes of many SET commands, of any databases, staged into one engine batch and committed together
 * under the stripe locks of all their keys ({@code SetCommandRun} says why that keeps Redis's semantics).
 * The type layer's side of such a run: the batch, the locks and the commit; the caller keeps the commands'
 * bookkeeping and replies.
 *
 * <p>Not thread-safe: it belongs to one thread at a time.
 */
public final class StagedStringWrites {

    /** Any view of the keyspace: locks, commits and the engine are shared by all of them. */
    private final Keyspace keyspace;
    private final List<byte[]> keys = new ArrayList<>();
    /** The physical database of each staged key, in staging order. */
    private int[] databases = new int[16];
    private WriteBatch batch = new WriteBatch();

    StagedStringWrites(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /**
     * Stages {@code key = value} (expiring at {@code expireAt}, 0 for never) in the database of {@code strings},
     * as {@link RedisStrings#stage} writes it. Throws {@link ValueTooLargeException}, staging nothing, when the
     * value does not fit the key.
     */
    public void stage(RedisStrings strings, byte[] key, byte[] value, long expireAt) {
        strings.stage(batch, key, value, expireAt);
        if (keys.size() == databases.length) {
            databases = Arrays.copyOf(databases, 2 * databases.length);
        }
        databases[keys.size()] = strings.database().physical();
        keys.add(key);
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    public int size() {
        return keys.size();
    }

    /** The {@code i}-th staged key. */
    public byte[] key(int i) {
        return keys.get(i);
    }

    /** The physical database the {@code i}-th staged key is written in. */
    public int physicalDatabase(int i) {
        return databases[i];
    }

    /**
     * Commits every staged write as one batch, holding the stripe locks of all the keys (taken together, in
     * the usual order) across the commit. With {@code withoutWaiting}, commits only if every lock is free
     * right now and the engine takes the write without waiting ({@link Keyspace#commitWithoutWaiting});
     * otherwise returns false having written nothing. The staged writes stay until {@link #clear}.
     */
    public boolean commit(boolean withoutWaiting) {
        byte[][] locked = keys.toArray(new byte[0][]);
        try (LockStripes.Held held = withoutWaiting ? keyspace.tryLockAll(locked) : keyspace.lockAll(locked)) {
            if (withoutWaiting) {
                return held != null && keyspace.commitWithoutWaiting(batch);
            }
            keyspace.commit(batch);
            return true;
        }
    }

    /** Forgets every staged write. */
    public void clear() {
        keys.clear();
        batch = new WriteBatch();
    }
}
