package io.varve.server.store;

import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.util.ArrayList;
import java.util.List;

/**
 * Active expiry: walks the metadata records a slice at a time, round-robin over the whole keyspace, and
 * deletes keys whose time has passed, so expired keys that nobody touches again do not stay forever. Each
 * candidate is re-checked under its key lock, because a client may have rewritten it since the walk saw it.
 * Not thread-safe: one scheduler thread calls {@link #sweep}.
 */
public final class ExpirySweeper {

    private final Keyspace keyspace;
    private byte[] resumeAfter;

    public ExpirySweeper(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    /** Examines up to {@code budget} keys; returns how many expired keys it deleted. */
    public int sweep(int budget) {
        List<byte[]> candidates = new ArrayList<>();
        long now = keyspace.now();
        boolean wrapped = false;
        try (DbIterator it = keyspace.metadataIterator(ReadOptions.DEFAULT)) {
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
                if (Metadata.decodeHeader(it.value()).isExpired(now)) {
                    candidates.add(KeyEncoding.userKeyOfMetadata(metaKey));
                }
            }
            if (!it.valid()) {
                wrapped = true;
            }
        }
        if (wrapped) {
            resumeAfter = null;
        }
        int removed = 0;
        for (byte[] key : candidates) {
            try (LockStripes.Held held = keyspace.lock(key)) {
                byte[] raw = keyspace.db().get(KeyEncoding.metadataKey(key));
                if (raw != null && Metadata.decodeHeader(raw).isExpired(keyspace.now())) {
                    WriteBatch batch = new WriteBatch();
                    keyspace.deleteMetadata(batch, key);
                    keyspace.commit(batch);
                    keyspace.countExpiredRemoval();
                    removed++;
                }
            }
        }
        return removed;
    }
}
