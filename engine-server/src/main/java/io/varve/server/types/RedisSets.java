package io.varve.server.types;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.SetPicker;
import io.varve.server.store.SetStore;
import io.varve.server.store.WrongTypeException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * The set type: metadata (version, member count) plus one subkey per member ({@link SetStore}). Writers hold
 * the key's stripe lock from the metadata lookup to the commit and write members and metadata in one batch;
 * a set that runs empty is deleted. Multi-member reads run at a snapshot. SPOP and SRANDMEMBER without a
 * count take a member at a random point of the member order ({@link SetPicker}: not uniform, and a pop never
 * crosses the tombstones of earlier pops); SRANDMEMBER with a count draws uniformly in one pass over the
 * members (O(members) time, memory for the reply only), since the subkeys have no rank to pick one by.
 */
public final class RedisSets {

    private final Keyspace keyspace;
    private final SetStore store;
    private final SetPicker picker;

    RedisSets(Keyspace keyspace) {
        this.keyspace = keyspace;
        this.store = new SetStore(keyspace);
        this.picker = new SetPicker(keyspace);
    }

    /** SADD: returns how many members were new. */
    public long add(byte[] key, List<byte[]> members) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.SET);
            if (meta == null) {
                meta = store.create();
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> addedHere = new HashSet<>();
            long added = 0;
            for (byte[] member : members) {
                if (!addedHere.contains(ByteBuffer.wrap(member))
                        && !store.contains(ReadOptions.DEFAULT, key, meta, member)) {
                    store.add(batch, key, meta, member);
                    addedHere.add(ByteBuffer.wrap(member));
                    added++;
                }
            }
            if (added > 0) {
                keyspace.putMetadata(batch, key, meta.withSize(meta.size() + added));
                keyspace.commit(batch);
            }
            return added;
        }
    }

    /** SREM: returns how many members were removed. */
    public long remove(byte[] key, List<byte[]> members) {
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.SET);
            if (meta == null) {
                return 0;
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> removedHere = new HashSet<>();
            long removed = 0;
            for (byte[] member : members) {
                if (!removedHere.contains(ByteBuffer.wrap(member))
                        && store.contains(ReadOptions.DEFAULT, key, meta, member)) {
                    store.remove(batch, key, meta, member);
                    removedHere.add(ByteBuffer.wrap(member));
                    removed++;
                }
            }
            if (removed > 0) {
                storeSize(batch, key, meta, meta.size() - removed);
                keyspace.commit(batch);
            }
            return removed;
        }
    }

    /** Puts the set's metadata with its new size, or deletes the key when it ran empty. */
    private void storeSize(WriteBatch batch, byte[] key, Metadata meta, long size) {
        if (size <= 0) {
            keyspace.deleteMetadata(batch, key);
        } else {
            keyspace.putMetadata(batch, key, meta.withSize(size));
        }
    }

    /** SCARD: the member count, 0 for an absent key. */
    public long size(byte[] key) {
        Metadata meta = keyspace.lookup(key, RedisType.SET);
        return meta == null ? 0 : meta.size();
    }

    /** SISMEMBER. */
    public boolean contains(byte[] key, byte[] member) {
        Metadata meta = keyspace.lookup(key, RedisType.SET);
        return meta != null && store.contains(ReadOptions.DEFAULT, key, meta, member);
    }

    /** SMISMEMBER: whether each member is in the set, read at one snapshot. */
    public boolean[] containsEach(byte[] key, List<byte[]> members) {
        boolean[] out = new boolean[members.size()];
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.SET);
            for (int i = 0; i < out.length && meta != null; i++) {
                out[i] = store.contains(at, key, meta, members.get(i));
            }
        }
        return out;
    }

    /** Every member of the set at {@code key} in byte order (empty when absent), read at one snapshot. */
    public List<byte[]> members(byte[] key) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.SET);
            return meta == null ? List.of() : store.members(at, key, meta);
        }
    }

    /**
     * Visits members in byte order at one snapshot, after {@code afterMember} (null: from the first), until
     * the visitor returns false.
     */
    public void forEach(byte[] key, byte[] afterMember, Predicate<byte[]> visitor) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.SET);
            if (meta != null) {
                store.forEach(at, key, meta, afterMember, visitor);
            }
        }
    }

    /** SPOP: removes and returns up to {@code count} members (all of them when it is at least the size). */
    public List<byte[]> pop(byte[] key, long count) {
        List<byte[]> popped = new ArrayList<>();
        try (LockStripes.Held held = keyspace.lock(key)) {
            Metadata meta = keyspace.lookup(key, RedisType.SET);
            if (meta == null || count <= 0) {
                return popped;
            }
            WriteBatch batch = new WriteBatch();
            boolean emptied = count >= meta.size();
            if (emptied) {
                // Everything goes: the members become garbage of a dead version, like on DEL.
                popped.addAll(picker.members(ReadOptions.DEFAULT, key, meta));
                keyspace.deleteMetadata(batch, key);
            } else {
                int wanted = (int) Math.min(count, Integer.MAX_VALUE - 8);
                popped.addAll(picker.pop(key, meta, wanted, ThreadLocalRandom.current()));
                for (byte[] m : popped) {
                    store.remove(batch, key, meta, m);
                }
                emptied = meta.size() - popped.size() <= 0;
                storeSize(batch, key, meta, meta.size() - popped.size());
            }
            try {
                keyspace.commit(batch);
            } catch (RuntimeException notCommitted) {
                keyspace.setPopHints().forget(meta.version()); // it already counts the members as gone
                throw notCommitted;
            }
            if (emptied) {
                keyspace.setPopHints().forget(meta.version());
            }
            return popped;
        }
    }

    /** SRANDMEMBER without a count: one member, or null when the set is absent. */
    public byte[] randomMember(byte[] key) {
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.SET);
            return meta == null ? null : picker.peek(at, key, meta, ThreadLocalRandom.current());
        }
    }

    /**
     * SRANDMEMBER with a count: {@code count > 0} distinct members (at most all), {@code count < 0} that many
     * members with repetition, in random order. Caller bounds {@code -count}.
     */
    public List<byte[]> randomMembers(byte[] key, long count) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = keyspace.lookup(at, key, RedisType.SET);
            if (meta == null || count == 0) {
                return List.of();
            }
            if (count > 0) {
                return picker.sample(at, key, meta, (int) Math.min(count, Integer.MAX_VALUE - 8), random);
            }
            // With repetition: random positions, sorted for one pass, then shuffled back into random order.
            long[] positions = new long[(int) -count];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = random.nextLong(meta.size());
            }
            Arrays.sort(positions);
            List<byte[]> out = new ArrayList<>(picker.atPositions(at, key, meta, positions));
            Collections.shuffle(out, random);
            return out;
        }
    }

    /** SMOVE: whether {@code member} was in {@code source} (and is now in {@code destination}). */
    public boolean move(byte[] source, byte[] destination, byte[] member) {
        try (LockStripes.Held held = keyspace.lockAll(source, destination)) {
            Metadata src = keyspace.lookup(source);
            Metadata dst = keyspace.lookup(destination);
            if (src == null) {
                return false;
            }
            if (src.type() != RedisType.SET || (dst != null && dst.type() != RedisType.SET)) {
                throw new WrongTypeException();
            }
            if (!store.contains(ReadOptions.DEFAULT, source, src, member)) {
                return false;
            }
            if (Arrays.equals(source, destination)) {
                return true;
            }
            WriteBatch batch = new WriteBatch();
            store.remove(batch, source, src, member);
            storeSize(batch, source, src, src.size() - 1);
            if (dst == null) {
                dst = store.create();
            }
            if (!store.contains(ReadOptions.DEFAULT, destination, dst, member)) {
                store.add(batch, destination, dst, member);
                keyspace.putMetadata(batch, destination, dst.withSize(dst.size() + 1));
            }
            keyspace.commit(batch);
            return true;
        }
    }

    /**
     * SINTER, SUNION, SDIFF over the sets at {@code keys}, read at one snapshot (a missing key is an empty
     * set), in the first operand's member order.
     */
    public Set<ByteBuffer> combine(List<byte[]> keys, SetOperation operation) {
        List<Set<ByteBuffer>> operands = new ArrayList<>();
        try (Snapshot snapshot = keyspace.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            for (byte[] key : keys) {
                Metadata meta = keyspace.lookup(at, key, RedisType.SET);
                Set<ByteBuffer> members = new LinkedHashSet<>();
                if (meta != null) {
                    store.forEach(at, key, meta, null, m -> members.add(ByteBuffer.wrap(m)));
                }
                operands.add(members);
            }
        }
        Set<ByteBuffer> result = new LinkedHashSet<>(operands.getFirst());
        for (Set<ByteBuffer> other : operands.subList(1, operands.size())) {
            switch (operation) {
                case INTERSECTION -> result.retainAll(other);
                case UNION -> result.addAll(other);
                case DIFFERENCE -> result.removeAll(other);
            }
        }
        return result;
    }

    /**
     * The STORE forms: holds the destination's lock, replaces whatever it held with the result (deleting it
     * when the result is empty, as Redis does) and returns the result's size.
     */
    public long combineInto(byte[] destination, List<byte[]> keys, SetOperation operation) {
        try (LockStripes.Held held = keyspace.lock(destination)) {
            Set<ByteBuffer> result = combine(keys, operation);
            WriteBatch batch = new WriteBatch();
            if (result.isEmpty()) {
                keyspace.deleteMetadata(batch, destination);
            } else {
                Metadata meta = store.create();
                for (ByteBuffer m : result) {
                    store.add(batch, destination, meta, m.array());
                }
                keyspace.putMetadata(batch, destination, meta.withSize(result.size()));
            }
            keyspace.commit(batch);
            return result.size();
        }
    }
}
