package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.SetPicker;
import io.varve.server.store.SetStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Set commands on one key over {@link SetStore}; the multi-key algebra is in {@link SetAlgebraCommands}.
 * Writers hold the key's lock and commit members and metadata in one batch; a set that runs empty is
 * deleted. SPOP and SRANDMEMBER without a count take a member at a random point of the member order
 * ({@link SetPicker}: not uniform, and a pop never crosses the tombstones of earlier pops); SRANDMEMBER with
 * a count draws uniformly in one pass over the members (O(members) time, memory for the reply only), since
 * the subkeys have no rank to pick a random one by.
 */
final class SetCommands {

    /** Most members SRANDMEMBER with a negative count may return (each may repeat, so the set does not bound it). */
    static final long MAX_REPEATED_MEMBERS = 1L << 24;

    private SetCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("sadd", -3, "write denyoom fast", 1, 1, 1, SetCommands::sadd);
        b.add("srem", -3, "write fast", 1, 1, 1, SetCommands::srem);
        b.add("smembers", 2, "readonly", 1, 1, 1, c -> {
            List<byte[]> members = readAll(c.keyspace(), c.arg(1));
            c.reply().setHeader(members.size());
            members.forEach(c.reply()::bulk);
        });
        b.add("sismember", 3, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.SET);
            c.reply().integer(meta != null && sets(c).contains(ReadOptions.DEFAULT, c.arg(1), meta, c.arg(2)) ? 1 : 0);
        });
        b.add("smismember", -3, "readonly fast", 1, 1, 1, SetCommands::smismember);
        b.add("scard", 2, "readonly fast", 1, 1, 1, c -> {
            Metadata meta = c.keyspace().lookup(c.arg(1), RedisType.SET);
            c.reply().integer(meta == null ? 0 : meta.size());
        });
        b.add("spop", -2, "write random fast", 1, 1, 1, SetCommands::spop);
        b.add("srandmember", -2, "readonly random", 1, 1, 1, SetCommands::srandmember);
        b.add("smove", 4, "write fast", 1, 2, 1, SetCommands::smove);
        b.add("sscan", -3, "readonly random", 1, 1, 1, SetCommands::sscan);
        SetAlgebraCommands.register(b);
    }

    static SetStore sets(CommandCall c) {
        return new SetStore(c.keyspace());
    }

    /** Every member of the set at {@code key} (empty when absent), read at one snapshot. */
    static List<byte[]> readAll(Keyspace ks, byte[] key) {
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, key, RedisType.SET);
            return meta == null ? List.of() : new SetStore(ks).members(at, key, meta);
        }
    }

    private static void sadd(CommandCall c) {
        Keyspace ks = c.keyspace();
        SetStore sets = sets(c);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.SET);
            if (meta == null) {
                meta = sets.create();
            }
            WriteBatch batch = new WriteBatch();
            Set<ByteBuffer> addedHere = new HashSet<>();
            long added = 0;
            for (int i = 2; i < c.argCount(); i++) {
                byte[] member = c.arg(i);
                if (!addedHere.contains(ByteBuffer.wrap(member)) && !sets.contains(ReadOptions.DEFAULT, key, meta, member)) {
                    sets.add(batch, key, meta, member);
                    addedHere.add(ByteBuffer.wrap(member));
                    added++;
                }
            }
            if (added > 0) {
                ks.putMetadata(batch, key, meta.withSize(meta.size() + added));
                ks.commit(batch);
            }
            c.reply().integer(added);
        }
    }

    private static void srem(CommandCall c) {
        Keyspace ks = c.keyspace();
        SetStore sets = sets(c);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.SET);
            long removed = 0;
            if (meta != null) {
                WriteBatch batch = new WriteBatch();
                Set<ByteBuffer> removedHere = new HashSet<>();
                for (int i = 2; i < c.argCount(); i++) {
                    byte[] member = c.arg(i);
                    if (!removedHere.contains(ByteBuffer.wrap(member)) && sets.contains(ReadOptions.DEFAULT, key, meta, member)) {
                        sets.remove(batch, key, meta, member);
                        removedHere.add(ByteBuffer.wrap(member));
                        removed++;
                    }
                }
                if (removed > 0) {
                    storeSize(ks, batch, key, meta, meta.size() - removed);
                    ks.commit(batch);
                }
            }
            c.reply().integer(removed);
        }
    }

    /** Puts the set's metadata with its new size, or deletes the key when it ran empty. */
    static void storeSize(Keyspace ks, WriteBatch batch, byte[] key, Metadata meta, long size) {
        if (size <= 0) {
            ks.deleteMetadata(batch, key);
        } else {
            ks.putMetadata(batch, key, meta.withSize(size));
        }
    }

    private static void smismember(CommandCall c) {
        Keyspace ks = c.keyspace();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.SET);
            c.reply().arrayHeader(c.argCount() - 2);
            for (int i = 2; i < c.argCount(); i++) {
                c.reply().integer(meta != null && sets(c).contains(at, c.arg(1), meta, c.arg(i)) ? 1 : 0);
            }
        }
    }

    private static void spop(CommandCall c) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? ListCommands.positive(c.arg(2)) : 1;
        Keyspace ks = c.keyspace();
        SetStore sets = sets(c);
        byte[] key = c.arg(1);
        List<byte[]> popped = new ArrayList<>();
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.SET);
            if (meta != null && count > 0) {
                WriteBatch batch = new WriteBatch();
                SetPicker picker = new SetPicker(ks);
                boolean emptied = count >= meta.size();
                if (emptied) {
                    // Everything goes: the members become garbage of a dead version, like on DEL.
                    popped.addAll(picker.members(ReadOptions.DEFAULT, key, meta));
                    ks.deleteMetadata(batch, key);
                } else {
                    int wanted = (int) Math.min(count, Integer.MAX_VALUE - 8);
                    popped.addAll(picker.pop(key, meta, wanted, ThreadLocalRandom.current()));
                    for (byte[] m : popped) {
                        sets.remove(batch, key, meta, m);
                    }
                    emptied = meta.size() - popped.size() <= 0;
                    storeSize(ks, batch, key, meta, meta.size() - popped.size());
                }
                try {
                    ks.commit(batch);
                } catch (RuntimeException notCommitted) {
                    ks.setPopHints().forget(meta.version()); // it already counts the members as gone
                    throw notCommitted;
                }
                if (emptied) {
                    ks.setPopHints().forget(meta.version());
                }
            }
        }
        Reply r = c.reply();
        if (!hasCount) {
            r.bulk(popped.isEmpty() ? null : popped.getFirst());
            return;
        }
        r.setHeader(popped.size());
        popped.forEach(r::bulk);
    }

    private static void srandmember(CommandCall c) {
        if (c.argCount() > 3) {
            throw RedisError.syntax();
        }
        boolean hasCount = c.argCount() == 3;
        long count = hasCount ? c.argLong(2) : 1;
        if (count == Long.MIN_VALUE) {
            throw new RedisError("ERR value is out of range, value must between -9223372036854775807 and "
                    + "9223372036854775807");
        }
        if (count < -MAX_REPEATED_MEMBERS) {
            // Redis would build the reply however large; here one request must not exhaust the heap.
            throw new RedisError("ERR value is out of range, value must between -" + MAX_REPEATED_MEMBERS
                    + " and 9223372036854775807");
        }
        Keyspace ks = c.keyspace();
        List<byte[]> out = List.of();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.SET);
            if (meta != null && !hasCount) {
                byte[] member = new SetPicker(ks).peek(at, c.arg(1), meta, random);
                out = member == null ? List.of() : List.of(member);
            } else if (meta != null && count > 0) {
                out = new SetPicker(ks).sample(at, c.arg(1), meta, (int) Math.min(count, Integer.MAX_VALUE - 8), random);
            } else if (meta != null && count < 0) {
                // With repetition: random positions, sorted for one pass, then shuffled back into random order.
                long[] positions = new long[(int) -count];
                for (int i = 0; i < positions.length; i++) {
                    positions[i] = random.nextLong(meta.size());
                }
                Arrays.sort(positions);
                out = new ArrayList<>(new SetPicker(ks).atPositions(at, c.arg(1), meta, positions));
                Collections.shuffle(out, random);
            }
        }
        Reply r = c.reply();
        if (!hasCount) {
            r.bulk(out.isEmpty() ? null : out.getFirst());
            return;
        }
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }

    private static void smove(CommandCall c) {
        Keyspace ks = c.keyspace();
        SetStore sets = sets(c);
        byte[] source = c.arg(1);
        byte[] destination = c.arg(2);
        byte[] member = c.arg(3);
        try (LockStripes.Held held = ks.lockAll(source, destination)) {
            Metadata src = ks.lookup(source);
            Metadata dst = ks.lookup(destination);
            if (src == null) {
                c.reply().integer(0);
                return;
            }
            if (src.type() != RedisType.SET || (dst != null && dst.type() != RedisType.SET)) {
                throw RedisError.wrongType();
            }
            if (!sets.contains(ReadOptions.DEFAULT, source, src, member)) {
                c.reply().integer(0);
                return;
            }
            if (Arrays.equals(source, destination)) {
                c.reply().integer(1);
                return;
            }
            WriteBatch batch = new WriteBatch();
            sets.remove(batch, source, src, member);
            storeSize(ks, batch, source, src, src.size() - 1);
            if (dst == null) {
                dst = sets.create();
            }
            if (!sets.contains(ReadOptions.DEFAULT, destination, dst, member)) {
                sets.add(batch, destination, dst, member);
                ks.putMetadata(batch, destination, dst.withSize(dst.size() + 1));
            }
            ks.commit(batch);
            c.reply().integer(1);
        }
    }

    private static void sscan(CommandCall c) {
        long cursor = KeyCommands.parseCursor(c.arg(2));
        CollectionScan options = CollectionScan.parse(c, false);
        Glob glob = options.glob();
        long count = options.count();
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        byte[] owner = CollectionScan.cursorOwner('S', key);
        byte[] resume = c.server().scanCursors().resume(owner, cursor);
        List<byte[]> out = new ArrayList<>();
        byte[][] last = new byte[1][];
        long[] examined = {0};
        boolean[] more = {false};
        Glob pattern = glob;
        long limit = count;
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, key, RedisType.SET);
            if (meta != null) {
                sets(c).forEach(at, key, meta, resume, m -> {
                    if (examined[0] == limit) {
                        more[0] = true;
                        return false;
                    }
                    examined[0]++;
                    last[0] = m;
                    if (pattern == null || pattern.matches(m)) {
                        out.add(m);
                    }
                    return true;
                });
            }
        }
        long next = more[0] ? c.server().scanCursors().save(owner, last[0]) : 0;
        Reply r = c.reply();
        r.arrayHeader(2);
        r.bulk(Long.toString(next));
        r.arrayHeader(out.size());
        out.forEach(r::bulk);
    }
}
