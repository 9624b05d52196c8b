package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.SetStore;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD. The inputs are read at one snapshot (a missing key
 * is an empty set; any other type is WRONGTYPE); the STORE forms hold the destination's lock and replace it
 * whatever it held, deleting it when the result is empty, as Redis does.
 */
final class SetAlgebraCommands {

    private enum Op { INTER, UNION, DIFF }

    private SetAlgebraCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("sinter", -2, "readonly", 1, -1, 1, c -> reply(c, compute(c.keyspace(), keys(c, 1), Op.INTER)));
        b.add("sunion", -2, "readonly", 1, -1, 1, c -> reply(c, compute(c.keyspace(), keys(c, 1), Op.UNION)));
        b.add("sdiff", -2, "readonly", 1, -1, 1, c -> reply(c, compute(c.keyspace(), keys(c, 1), Op.DIFF)));
        b.add("sinterstore", -3, "write denyoom", 1, -1, 1, c -> store(c, Op.INTER));
        b.add("sunionstore", -3, "write denyoom", 1, -1, 1, c -> store(c, Op.UNION));
        b.add("sdiffstore", -3, "write denyoom", 1, -1, 1, c -> store(c, Op.DIFF));
        b.add("sintercard", -3, "readonly", List.of(KeySpec.counted(1)), SetAlgebraCommands::sintercard);
    }

    private static List<byte[]> keys(CommandCall c, int from) {
        return Arrays.asList(c.args()).subList(from, c.argCount());
    }

    private static void reply(CommandCall c, Set<ByteBuffer> result) {
        c.reply().setHeader(result.size());
        for (ByteBuffer m : result) {
            c.reply().bulk(m.array());
        }
    }

    /** The operation over the sets at {@code keys}, in the first operand's member order. */
    private static Set<ByteBuffer> compute(Keyspace ks, List<byte[]> keys, Op op) {
        List<Set<ByteBuffer>> operands = new ArrayList<>();
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            SetStore sets = new SetStore(ks);
            for (byte[] key : keys) {
                Metadata meta = ks.lookup(at, key, RedisType.SET);
                Set<ByteBuffer> members = new LinkedHashSet<>();
                if (meta != null) {
                    sets.forEach(at, key, meta, null, m -> members.add(ByteBuffer.wrap(m)));
                }
                operands.add(members);
            }
        }
        Set<ByteBuffer> result = new LinkedHashSet<>(operands.getFirst());
        for (Set<ByteBuffer> other : operands.subList(1, operands.size())) {
            switch (op) {
                case INTER -> result.retainAll(other);
                case UNION -> result.addAll(other);
                case DIFF -> result.removeAll(other);
            }
        }
        return result;
    }

    private static void store(CommandCall c, Op op) {
        Keyspace ks = c.keyspace();
        byte[] destination = c.arg(1);
        try (LockStripes.Held held = ks.lock(destination)) {
            Set<ByteBuffer> result = compute(ks, keys(c, 2), op);
            WriteBatch batch = new WriteBatch();
            if (result.isEmpty()) {
                ks.deleteMetadata(batch, destination);
            } else {
                SetStore sets = new SetStore(ks);
                Metadata meta = sets.create();
                for (ByteBuffer m : result) {
                    sets.add(batch, destination, meta, m.array());
                }
                ks.putMetadata(batch, destination, meta.withSize(result.size()));
            }
            ks.commit(batch);
            c.reply().integer(result.size());
        }
    }

    /** SINTERCARD numkeys key... [LIMIT limit]. */
    private static void sintercard(CommandCall c) {
        Long numKeys = Args.tryParseLong(c.arg(1));
        if (numKeys == null || numKeys <= 0) {
            throw new RedisError("ERR numkeys should be greater than 0");
        }
        if (numKeys > c.argCount() - 2) {
            throw new RedisError("ERR Number of keys can't be greater than number of args");
        }
        int end = (int) (2 + numKeys);
        long limit = 0;
        for (int i = end; i < c.argCount(); i++) {
            if (c.argIs(i, "limit") && i + 1 < c.argCount()) {
                Long v = Args.tryParseLong(c.arg(++i));
                if (v == null || v < 0) {
                    throw new RedisError("ERR LIMIT can't be negative");
                }
                limit = v;
            } else {
                throw RedisError.syntax();
            }
        }
        long size = compute(c.keyspace(), Arrays.asList(c.args()).subList(2, end), Op.INTER).size();
        c.reply().integer(limit == 0 ? size : Math.min(size, limit));
    }
}
