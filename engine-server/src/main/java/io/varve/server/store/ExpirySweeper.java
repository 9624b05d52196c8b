package io.varve.server.store;

import io.varve.base.concurrent.LockStripes;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.ArrayList;
import java.util.List;

/**
 * Active expiry: walks the metadata records a slice at a time, round-robin over the whole keyspace, and
 * deletes keys whose time has passed. The compaction filter removes expired keys in whatever compaction
 * rewrites, but compaction follows writes: without this sweep, expired keys in data that is no longer
 * written (a memtable that never fills, tables no compaction picks) would stay, invisible, indefinitely. Each
 * candidate is re-checked under its key lock, because a client may have rewritten it since the walk saw it.
 * Not thread-safe: one scheduler thread calls {@link #sweep}.
 */
public final class ExpirySweeper {

    private final Keyspace keyspace;
    private byte[] resumeAfter;
    /** State of the current pass: whether it met a key with an expiry, and the write count when it began. */
    private boolean sawExpiry;
    private long expiringWritesAtPassStart = -1;
    private boolean idle;
    private long idleSince;
    private static final long MAX_REST_NANOS = 10_000_000_000L;

    /** Told of each key the sweep deleted, with its logical database (keyspace notifications' "expired"). */
    public interface Listener {
        void expired(int database, byte[] key);
    }

    private final Listener listener;

    public ExpirySweeper(Keyspace keyspace) {
        this(keyspace, (database, key) -> { });
    }

    public ExpirySweeper(Keyspace keyspace, Listener listener) {
        this.keyspace = keyspace;
        this.listener = listener;
    }

    /**
     * Examines up to {@code budget} keys; returns how many expired keys it deleted. Rests (examines nothing)
     * once a whole pass over the keyspace found no key with an expiry and none was written since, but for at
     * most {@value #MAX_REST_NANOS} ns: a write counted just before a pass began may have become visible only
     * after the pass went by its key.
     */
    public int sweep(int budget) {
        if (idle && keyspace.expiringWrites() == expiringWritesAtPassStart
                && System.nanoTime() - idleSince < MAX_REST_NANOS) {
            return 0;
        }
        if (resumeAfter == null) {
            expiringWritesAtPassStart = keyspace.expiringWrites();
            sawExpiry = false;
            idle = false;
        }
        List<byte[]> candidates = new ArrayList<>();
        long now = keyspace.now();
        boolean wrapped = false;
        try (DbIterator it = keyspace.allMetadataIterator(ReadOptions.DEFAULT)) {
            if (resumeAfter == null) {
                it.seekToFirst();
            } else {
                it.seek(resumeAfter);
                if (it.valid() && java.util.Arrays.equals(it.key(), resumeAfter)) {
                    it.next();
                }
            }
            int seen = 0;
            for (; it.valid() && seen < budget; it.next(), seen++) {
                byte[] metaKey = it.key();
                resumeAfter = metaKey;
                Metadata header = Metadata.decodeHeader(it.value());
                sawExpiry |= header.hasExpiry();
                if (header.isExpired(now) && keyspace.writesHere(metaKey)) {
                    candidates.add(metaKey);
                }
            }
            if (!it.valid()) {
                wrapped = true;
            }
        }
        if (wrapped) {
            resumeAfter = null;
            idle = !sawExpiry;
            idleSince = System.nanoTime();
        }
        int removed = 0;
        for (byte[] metaKey : candidates) {
            try (LockStripes.Held held = keyspace.lock(KeyEncoding.userKeyOfMetadata(metaKey))) {
                byte[] raw = keyspace.db().get(metaKey);
                if (raw != null && Metadata.decodeHeader(raw).isExpired(keyspace.now())) {
                    WriteBatch batch = new WriteBatch();
                    batch.delete(metaKey); // any database's: the sweep runs outside every command's binding
                    keyspace.commit(batch);
                    keyspace.countExpiredRemoval();
                    removed++;
                    listener.expired(keyspace.databases().logical(KeyEncoding.databaseOfMetadata(metaKey)),
                            KeyEncoding.userKeyOfMetadata(metaKey));
                }
            }
        }
        return removed;
    }
}
