package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import io.varve.server.store.Metadata;
import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore;
import io.varve.server.store.StreamStore.Consumer;
import io.varve.server.store.StreamStore.Group;
import io.varve.server.store.StreamStore.Pending;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One command's changes to one consumer group: the group record, the consumers it reads or creates and the
 * pending entries it adds, moves or removes, kept in memory so that the counters stored in the group and
 * consumer records (pending, consumers) stay equal to the records they count, and so that a second change
 * of the same pending entry within the command sees the first. {@link #flush} writes it all into the
 * command's batch. Caller holds the stream's lock throughout.
 */
final class GroupEdit {

    private final StreamStore store;
    private final byte[] key;
    private final Metadata meta;
    private final long now;
    private Group group;
    private boolean groupChanged;
    private final Map<ByteBuffer, Consumer> consumers = new HashMap<>();
    private final Map<ByteBuffer, Consumer> changedConsumers = new LinkedHashMap<>();
    private final Map<StreamId, Optional<Pending>> pending = new LinkedHashMap<>();

    GroupEdit(StreamStore store, byte[] key, Metadata meta, Group group, long now) {
        this.store = store;
        this.key = key;
        this.meta = meta;
        this.group = group;
        this.now = now;
    }

    Group group() {
        return group;
    }

    void group(Group changed) {
        group = changed;
        groupChanged = true;
    }

    /** The consumer, or null when it does not exist and {@code create} is false. Creating one counts it. */
    Consumer consumer(byte[] name, boolean create) {
        ByteBuffer k = ByteBuffer.wrap(name);
        Consumer c = consumers.get(k);
        if (c == null) {
            c = store.consumer(ReadOptions.DEFAULT, key, meta, group.name(), name);
            if (c == null) {
                if (!create) {
                    return null;
                }
                c = new Consumer(name, now, 0);
                group(group.withConsumers(group.consumers() + 1));
                changedConsumers.put(k, c);
            }
            consumers.put(k, c);
        }
        return c;
    }

    /** Marks the consumer seen now (it read or claimed), creating it if needed. */
    void seen(byte[] name) {
        Consumer c = consumer(name, true);
        put(new Consumer(c.name(), now, c.pending()));
    }

    private void put(Consumer c) {
        ByteBuffer k = ByteBuffer.wrap(c.name());
        consumers.put(k, c);
        changedConsumers.put(k, c);
    }

    private void adjustPending(byte[] consumer, long delta) {
        Consumer c = consumer(consumer, false);
        if (c != null) {
            put(new Consumer(c.name(), c.seenTime(), c.pending() + delta));
        }
    }

    /** The pending entry of {@code id}, or null. */
    Pending pending(StreamId id) {
        Optional<Pending> known = pending.get(id);
        if (known != null) {
            return known.orElse(null);
        }
        return store.pending(ReadOptions.DEFAULT, key, meta, group.name(), id);
    }

    /**
     * Records {@code p} as the pending entry of its ID, replacing whatever was there: the old owner's count
     * goes down, the new one's up, and the group's count follows.
     */
    void putPending(Pending p) {
        Pending old = pending(p.id());
        if (old == null) {
            group(group.withPending(group.pending() + 1));
        } else {
            adjustPending(old.consumer(), -1);
        }
        adjustPending(p.consumer(), 1);
        pending.put(p.id(), Optional.of(p));
    }

    /** Removes the pending entry of {@code id}; returns whether there was one. */
    boolean removePending(StreamId id) {
        Pending old = pending(id);
        if (old == null) {
            return false;
        }
        adjustPending(old.consumer(), -1);
        group(group.withPending(group.pending() - 1));
        pending.put(id, Optional.empty());
        return true;
    }

    /** Deletes a consumer; its pending entries must have been removed first. */
    void deleteConsumer(WriteBatch batch, byte[] name) {
        ByteBuffer k = ByteBuffer.wrap(name);
        consumers.remove(k);
        changedConsumers.remove(k);
        store.deleteConsumer(batch, key, meta, group.name(), name);
        group(group.withConsumers(group.consumers() - 1));
    }

    /** Writes every change into {@code batch}. */
    void flush(WriteBatch batch) {
        pending.forEach((id, p) -> {
            if (p.isPresent()) {
                store.putPending(batch, key, meta, group.name(), p.get());
            } else {
                store.deletePending(batch, key, meta, group.name(), id);
            }
        });
        changedConsumers.values().forEach(c -> store.putConsumer(batch, key, meta, group.name(), c));
        if (groupChanged) {
            store.putGroup(batch, key, meta, group);
        }
    }
}
