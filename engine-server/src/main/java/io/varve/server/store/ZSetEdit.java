package io.varve.server.store;

import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The changes one command makes to one sorted set, applied in memory first and written in one batch by
 * {@link #commit}. Reads through the edit see its own changes, so a command that touches a member twice
 * (ZADD k 1 a 2 a) behaves as Redis applying them in order, and each engine key is written at most once.
 * The caller holds the key's lock from construction to commit.
 */
public final class ZSetEdit {

    private final ZSetStore store;
    private final byte[] key;
    private final boolean existed;
    private Metadata meta;
    private long size;
    /** Score each touched member had in the store (null: absent), in first-touch order. */
    private final Map<ByteBuffer, Double> original = new LinkedHashMap<>();
    /** Score each touched member has now (null: removed). */
    private final Map<ByteBuffer, Double> current = new HashMap<>();

    /** @param meta the set's live metadata, or null when the key is absent (a set is created if needed) */
    public ZSetEdit(ZSetStore store, byte[] key, Metadata meta) {
        this.store = store;
        this.key = key;
        this.existed = meta != null;
        this.meta = meta;
        this.size = meta == null ? 0 : meta.size();
    }

    public long size() {
        return size;
    }

    public byte[] key() {
        return key;
    }

    /** The member's score as this edit has left it; null when absent. */
    public Double score(byte[] member) {
        ByteBuffer m = ByteBuffer.wrap(member);
        if (current.containsKey(m)) {
            return current.get(m);
        }
        Double stored = meta == null ? null : store.score(ReadOptions.DEFAULT, key, meta, member);
        original.put(m, stored);
        current.put(m, stored);
        return stored;
    }

    /** Sets the member's score; returns whether it was added (not just updated). */
    public boolean put(byte[] member, double score) {
        boolean added = score(member) == null;
        current.put(ByteBuffer.wrap(member), ScoreCodec.normalize(score));
        if (added) {
            size++;
        }
        return added;
    }

    /** Removes the member; returns whether it was there. */
    public boolean remove(byte[] member) {
        if (score(member) == null) {
            return false;
        }
        current.put(ByteBuffer.wrap(member), null);
        size--;
        return true;
    }

    /** Removes a member a scan of this set just returned with {@code score}, without looking it up again. */
    public void removeKnown(byte[] member, double score) {
        ByteBuffer m = ByteBuffer.wrap(member);
        if (!current.containsKey(m)) {
            original.put(m, score);
            current.put(m, score);
        }
        remove(member);
    }

    /**
     * Adds the changes to {@code batch}: subkeys of changed members, and the metadata with the new size —
     * or its deletion when the set became empty (Redis never keeps an empty sorted set).
     */
    public void writeTo(Keyspace keyspace, WriteBatch batch) {
        if (size == 0) {
            if (existed) {
                keyspace.deleteMetadata(batch, key);
            }
            return;
        }
        if (meta == null) {
            meta = store.create();
        }
        for (Map.Entry<ByteBuffer, Double> e : original.entrySet()) {
            Double before = e.getValue();
            Double after = current.get(e.getKey());
            byte[] member = e.getKey().array();
            if (after == null) {
                if (before != null) {
                    store.remove(batch, key, meta, member, before);
                }
            } else if (before == null || Double.compare(before, after) != 0) {
                store.put(batch, key, meta, member, before, after);
            }
        }
        keyspace.putMetadata(batch, key, meta.withSize(size));
    }

    /** Whether anything changed. */
    public boolean changed() {
        for (Map.Entry<ByteBuffer, Double> e : original.entrySet()) {
            Double after = current.get(e.getKey());
            Double before = e.getValue();
            if (before == null ? after != null : after == null || Double.compare(before, after) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Writes the changes, if any, in one commit. */
    public void commit(Keyspace keyspace) {
        if (!changed()) {
            return;
        }
        WriteBatch batch = new WriteBatch();
        writeTo(keyspace, batch);
        keyspace.commit(batch);
    }
}
