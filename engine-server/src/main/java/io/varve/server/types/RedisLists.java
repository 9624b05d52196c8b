package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.server.store.ListStore;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.WrongTypeException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The list type ({@link ListStore}: one subkey per position between the metadata's head and tail). Writers
 * hold the key's stripe lock (both keys' for a move) and commit elements and metadata in one batch; a list
 * that runs empty is deleted. Every write that can fill a key signals the keyspace's blocked clients after
 * its locks are released. LSET is one subkey write; LTRIM deletes the trimmed positions; LINSERT and LREM
 * read the list and rewrite the elements that move (LINSERT shifts whichever side of the insertion point is
 * shorter), as Kvrocks does.
 */
public final class RedisLists {

    private final Keyspace keyspace;
    private final ListStore store;

    RedisLists(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.store = new ListStore(keyspace);
    }

    /** Puts the list's new metadata, or deletes the key when the list ran empty. */
    private void storeMetadata(WriteBatch batch, byte[] key, Metadata meta) {
        if (meta.size() == 0) {
            keyspace.deleteMetadata(batch, key);
        } else {
            keyspace.putMetadata(batch, key, meta);
        }
    }

    /**
     * LPUSH/RPUSH (and the X forms with {@code onlyIfExists}): returns the new length, 0 when the X form
     * found no list.
     */
    public long push(byte[] key, boolean left, boolean onlyIfExists, List<byte[]> values) {
        long length;
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                if (onlyIfExists) {
                    return 0;
                }
                meta = store.create();
            }
            WriteBatch batch = new WriteBatch();
            meta = store.push(batch, key, meta, left, values);
            keyspace.putMetadata(batch, key, meta);
            keyspace.commit(batch);
            length = meta.size();
        }
        keyspace.blocking().signal(key);
        return length;
    }

    /**
     * Replaces whatever {@code key} holds (any type, its expiry too) with a list of {@code values}; no values
     * delete the key (SORT ... STORE). Returns the list's length.
     */
    public long replaceWith(byte[] key, List<byte[]> values) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            WriteBatch batch = new WriteBatch();
            if (values.isEmpty()) {
                if (keyspace.header(key) == null) {
                    return 0;
                }
                keyspace.deleteMetadata(batch, key);
            } else {
                keyspace.putMetadata(batch, key, store.push(batch, key, store.create(), false, values));
            }
            keyspace.commit(batch);
        }
        if (!values.isEmpty()) {
            keyspace.blocking().signal(key);
        }
        return values.size();
    }

    /** LPOP/RPOP: up to {@code count} elements, or null when the key is absent. */
    public List<byte[]> pop(byte[] key, boolean left, long count) {
        List<byte[]> popped = new ArrayList<>();
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                return null;
            }
            if (count > 0) {
                WriteBatch batch = new WriteBatch();
                storeMetadata(batch, key, store.pop(ReadOptions.DEFAULT, batch, key, meta, left, count, popped));
                keyspace.commit(batch);
            }
        }
        return popped;
    }

    /** LLEN: the length, 0 for an absent key. */
    public long length(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.LIST);
        return meta == null ? 0 : meta.size();
    }

    /**
     * LINDEX: the element at the index {@code index} gives (negative counts from the end), or null. The index
     * is asked for only once the list is found, so an absent key answers nil whatever the argument, as in
     * Redis.
     */
    public byte[] get(byte[] key, LongSupplier index) {
        Metadata meta = keyspace.lookup(key, RedisType.LIST);
        if (meta == null) {
            return null;
        }
        long i = index.getAsLong();
        if (i < 0) {
            i += meta.size();
        }
        return store.get(ReadOptions.DEFAULT, key, meta, i);
    }

    /** LRANGE: the elements from {@code start} to {@code stop} (Redis's rule), read at one snapshot. */
    public List<byte[]> range(byte[] key, long start, long stop) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.LIST);
            if (meta == null) {
                return List.of();
            }
            long[] range = clampRange(start, stop, meta.size());
            return store.range(at, key, meta, range[0], range[1]);
        }
    }

    /** Every element, read at one snapshot; null when the key is absent (LPOS). */
    public List<byte[]> elements(byte[] key) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.LIST);
            return meta == null ? null : store.all(at, key, meta);
        }
    }

    /**
     * Redis's start/stop rule for LRANGE and LTRIM: negatives count from the end, then both are clamped to the
     * list; returns {from, to} inclusive, with from > to when the range is empty.
     */
    public static long[] clampRange(long start, long stop, long size) {
        if (start < 0) {
            start = Math.max(0, size + start);
        }
        if (stop < 0) {
            stop = size + stop;
        }
        if (stop >= size) {
            stop = size - 1;
        }
        if (start > stop || start >= size) {
            return new long[] {0, -1};
        }
        return new long[] {start, stop};
    }

    /**
     * LMOVE / RPOPLPUSH: moves one element under both keys' locks and signals the destination's waiters;
     * returns it, or null when the source is empty. WRONGTYPE when either key holds another type (the
     * destination is checked only when there is something to move, as in Redis).
     */
    public byte[] move(byte[] source, byte[] destination, boolean fromLeft, boolean toLeft) {
        byte[] element = moveLocked(source, destination, fromLeft, toLeft, true);
        if (element != null) {
            keyspace.blocking().signal(destination);
        }
        return element;
    }

    /**
     * The move itself, taking both keys' locks (a caller may already hold them). With
     * {@code sourceMustBeList} false a source of another type reads as "nothing to move" (a blocked BLMOVE
     * keeps waiting, as Redis does not serve it from such a key); a destination of another type is always
     * WRONGTYPE, which ends a blocked BLMOVE with that error as in Redis.
     */
    public byte[] moveLocked(byte[] source, byte[] destination, boolean fromLeft, boolean toLeft,
                             boolean sourceMustBeList) {
        try (LockStripes.Held held = keyspace.lockAll(source, destination)) {
            Metadata src = keyspace.lookup(source);
            if (src == null || (src.type() != RedisType.LIST && !sourceMustBeList)) {
                return null;
            }
            if (src.type() != RedisType.LIST) {
                throw new WrongTypeException();
            }
            Metadata dst = keyspace.lookup(destination);
            if (dst != null && dst.type() != RedisType.LIST) {
                throw new WrongTypeException();
            }
            WriteBatch batch = new WriteBatch();
            List<byte[]> popped = new ArrayList<>(1);
            Metadata srcAfter = store.pop(ReadOptions.DEFAULT, batch, source, src, fromLeft, 1, popped);
            byte[] element = popped.getFirst();
            if (Arrays.equals(source, destination)) {
                srcAfter = store.push(batch, destination, srcAfter, toLeft, List.of(element));
            } else {
                Metadata dstAfter = store.push(batch, destination, dst == null ? store.create() : dst, toLeft,
                        List.of(element));
                keyspace.putMetadata(batch, destination, dstAfter);
            }
            storeMetadata(batch, source, srcAfter);
            keyspace.commit(batch);
            return element;
        }
    }

    /** A multi-key pop's result: the key popped from and its elements. */
    public record Popped(byte[] key, List<byte[]> elements) {
    }

    /**
     * LMPOP: pops up to {@code count} elements from the first non-empty list among {@code keys}, under all
     * their locks; null when all are empty. A key of another type fails with {@code failOnWrongType}, else
     * is skipped.
     */
    public Popped popFirst(List<byte[]> keys, boolean left, long count, boolean failOnWrongType) {
        try (LockStripes.Held held = keyspace.lockAll(keys.toArray(new byte[0][]))) {
            for (byte[] key : keys) {
                Popped popped = popLocked(key, left, count, failOnWrongType);
                if (popped != null) {
                    return popped;
                }
            }
            return null;
        }
    }

    /** Pops from {@code key} if it is a non-empty list; caller holds its lock. */
    public Popped popLocked(byte[] key, boolean left, long count, boolean failOnWrongType) {
        Metadata meta = keyspace.lookup(key);
        if (meta == null) {
            return null;
        }
        if (meta.type() != RedisType.LIST) {
            if (failOnWrongType) {
                throw new WrongTypeException();
            }
            return null;
        }
        WriteBatch batch = new WriteBatch();
        List<byte[]> popped = new ArrayList<>();
        storeMetadata(batch, key, store.pop(ReadOptions.DEFAULT, batch, key, meta, left, count, popped));
        keyspace.commit(batch);
        return new Popped(key, popped);
    }

    /**
     * LSET: {@link NoSuchKeyException} for an absent key (before the index is asked for, as in Redis),
     * {@link IndexOutOfRangeException} outside the list.
     */
    public void set(byte[] key, LongSupplier index, byte[] value) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                throw new NoSuchKeyException();
            }
            long i = index.getAsLong();
            if (i < 0) {
                i += meta.size();
            }
            if (i < 0 || i >= meta.size()) {
                throw new IndexOutOfRangeException();
            }
            WriteBatch batch = new WriteBatch();
            store.put(batch, key, meta, ListStore.head(meta) + i, value);
            keyspace.commit(batch);
        }
    }

    /** LINSERT: the new length, 0 when the key is absent, -1 when the pivot is not found. */
    public long insert(byte[] key, boolean before, byte[] pivot, byte[] value) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                return 0;
            }
            List<byte[]> elements = new ArrayList<>(store.all(ReadOptions.DEFAULT, key, meta));
            int found = indexOf(elements, pivot);
            if (found < 0) {
                return -1;
            }
            int at = before ? found : found + 1;
            elements.add(at, value);
            WriteBatch batch = new WriteBatch();
            Metadata after;
            long head = ListStore.head(meta);
            if (at < elements.size() - at) {
                // Shorter on the left: move the first `at` elements one position left, freeing head + at - 1.
                for (int i = 0; i <= at; i++) {
                    store.put(batch, key, meta, head - 1 + i, elements.get(i));
                }
                after = ListStore.withEnds(meta, head - 1, ListStore.tail(meta));
            } else {
                after = store.rewriteFrom(batch, key, meta, elements, at);
            }
            keyspace.putMetadata(batch, key, after);
            keyspace.commit(batch);
            return after.size();
        }
    }

    private static int indexOf(List<byte[]> elements, byte[] value) {
        for (int i = 0; i < elements.size(); i++) {
            if (Arrays.equals(elements.get(i), value)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * LREM: removes up to |count| elements equal to {@code value} (all when 0; from the tail when negative);
     * returns how many.
     */
    public long removeMatching(byte[] key, long count, byte[] value) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                return 0;
            }
            List<byte[]> elements = store.all(ReadOptions.DEFAULT, key, meta);
            int n = elements.size();
            boolean[] removed = new boolean[n];
            long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
            long removedCount = 0;
            for (int k = 0; k < n && removedCount < limit; k++) {
                int i = count < 0 ? n - 1 - k : k;
                if (Arrays.equals(elements.get(i), value)) {
                    removed[i] = true;
                    removedCount++;
                }
            }
            if (removedCount > 0) {
                List<byte[]> kept = new ArrayList<>(n);
                int firstRemoved = -1;
                for (int i = 0; i < n; i++) {
                    if (removed[i]) {
                        firstRemoved = firstRemoved < 0 ? i : firstRemoved;
                    } else {
                        kept.add(elements.get(i));
                    }
                }
                WriteBatch batch = new WriteBatch();
                storeMetadata(batch, key, store.rewriteFrom(batch, key, meta, kept, firstRemoved));
                keyspace.commit(batch);
            }
            return removedCount;
        }
    }

    /** LTRIM: keeps the elements from {@code start} to {@code stop} (Redis's rule); an empty range deletes. */
    public void trim(byte[] key, long start, long stop) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.LIST);
            if (meta == null) {
                return;
            }
            long[] range = clampRange(start, stop, meta.size());
            long head = ListStore.head(meta);
            long tail = ListStore.tail(meta);
            WriteBatch batch = new WriteBatch();
            if (range[0] > range[1]) {
                keyspace.deleteMetadata(batch, key);
            } else {
                long newHead = head + range[0];
                long newTail = head + range[1] + 1;
                for (long p = head; p < newHead; p++) {
                    store.delete(batch, key, meta, p);
                }
                for (long p = newTail; p < tail; p++) {
                    store.delete(batch, key, meta, p);
                }
                keyspace.putMetadata(batch, key, ListStore.withEnds(meta, newHead, newTail));
            }
            keyspace.commit(batch);
        }
    }
}
