package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.store.Keyspace;
import io.varve.server.store.ListStore;
import io.varve.server.store.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * List commands that look inside the list: LSET, LINSERT, LREM, LTRIM, LPOS. LSET is one subkey write;
 * LTRIM deletes the trimmed positions; LINSERT and LREM read the list and rewrite the elements that move
 * (LINSERT shifts whichever side of the insertion point is shorter), as Kvrocks does.
 */
final class ListEditCommands {

    private ListEditCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("lset", 4, "write denyoom", 1, 1, 1, ListEditCommands::lset);
        b.add("linsert", 5, "write denyoom", 1, 1, 1, ListEditCommands::linsert);
        b.add("lrem", 4, "write", 1, 1, 1, ListEditCommands::lrem);
        b.add("ltrim", 4, "write", 1, 1, 1, ListEditCommands::ltrim);
        b.add("lpos", -3, "readonly", 1, 1, 1, ListEditCommands::lpos);
    }

    private static void lset(CommandCall c) {
        Keyspace ks = c.keyspace();
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta == null) {
                throw new RedisError(RedisError.NO_SUCH_KEY); // before the index is parsed, as in Redis
            }
            long index = c.argLong(2);
            if (index < 0) {
                index += meta.size();
            }
            if (index < 0 || index >= meta.size()) {
                throw new RedisError("ERR index out of range");
            }
            WriteBatch batch = new WriteBatch();
            ListCommands.lists(c).put(batch, key, meta, ListStore.head(meta) + index, c.arg(3));
            ks.commit(batch);
        }
        c.reply().ok();
    }

    private static void linsert(CommandCall c) {
        boolean before;
        if (c.argIs(2, "before")) {
            before = true;
        } else if (c.argIs(2, "after")) {
            before = false;
        } else {
            throw RedisError.syntax();
        }
        Keyspace ks = c.keyspace();
        ListStore lists = ListCommands.lists(c);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            List<byte[]> elements = new ArrayList<>(lists.all(ReadOptions.DEFAULT, key, meta));
            int pivot = indexOf(elements, c.arg(3));
            if (pivot < 0) {
                c.reply().integer(-1);
                return;
            }
            int at = before ? pivot : pivot + 1;
            elements.add(at, c.arg(4));
            WriteBatch batch = new WriteBatch();
            Metadata after;
            long head = ListStore.head(meta);
            if (at < elements.size() - at) {
                // Shorter on the left: move the first `at` elements one position left, freeing head + at - 1.
                for (int i = 0; i <= at; i++) {
                    lists.put(batch, key, meta, head - 1 + i, elements.get(i));
                }
                after = ListStore.withEnds(meta, head - 1, ListStore.tail(meta));
            } else {
                after = lists.rewriteFrom(batch, key, meta, elements, at);
            }
            ks.putMetadata(batch, key, after);
            ks.commit(batch);
            c.reply().integer(after.size());
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

    private static void lrem(CommandCall c) {
        long count = c.argLong(2);
        byte[] value = c.arg(3);
        Keyspace ks = c.keyspace();
        ListStore lists = ListCommands.lists(c);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta == null) {
                c.reply().integer(0);
                return;
            }
            List<byte[]> elements = lists.all(ReadOptions.DEFAULT, key, meta);
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
                ListCommands.store(ks, batch, key, lists.rewriteFrom(batch, key, meta, kept, firstRemoved));
                ks.commit(batch);
            }
            c.reply().integer(removedCount);
        }
    }

    private static void ltrim(CommandCall c) {
        long start = c.argLong(2);
        long stop = c.argLong(3);
        Keyspace ks = c.keyspace();
        ListStore lists = ListCommands.lists(c);
        byte[] key = c.arg(1);
        try (LockStripes.Held held = ks.lock(key)) {
            Metadata meta = ks.lookup(key, RedisType.LIST);
            if (meta != null) {
                long[] range = ListCommands.clampRange(start, stop, meta.size());
                long head = ListStore.head(meta);
                long tail = ListStore.tail(meta);
                WriteBatch batch = new WriteBatch();
                if (range[0] > range[1]) {
                    ks.deleteMetadata(batch, key);
                } else {
                    long newHead = head + range[0];
                    long newTail = head + range[1] + 1;
                    for (long p = head; p < newHead; p++) {
                        lists.delete(batch, key, meta, p);
                    }
                    for (long p = newTail; p < tail; p++) {
                        lists.delete(batch, key, meta, p);
                    }
                    ks.putMetadata(batch, key, ListStore.withEnds(meta, newHead, newTail));
                }
                ks.commit(batch);
            }
        }
        c.reply().ok();
    }

    /** LPOS key element [RANK rank] [COUNT num] [MAXLEN len]. */
    private static void lpos(CommandCall c) {
        long rank = 1;
        long count = -1;
        long maxLen = 0;
        for (int i = 3; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (more && c.argIs(i, "rank")) {
                rank = c.argLong(++i);
                if (rank == 0) {
                    throw new RedisError("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                            + "second ... or use negative to start from the end of the list");
                }
                if (rank == Long.MIN_VALUE) {
                    throw new RedisError("ERR value is out of range");
                }
            } else if (more && c.argIs(i, "count")) {
                count = nonNegative(c.arg(++i), "ERR COUNT can't be negative");
            } else if (more && c.argIs(i, "maxlen")) {
                maxLen = nonNegative(c.arg(++i), "ERR MAXLEN can't be negative");
            } else {
                throw RedisError.syntax();
            }
        }
        Keyspace ks = c.keyspace();
        List<byte[]> elements = null;
        try (Snapshot snapshot = ks.snapshot()) {
            ReadOptions at = ReadOptions.at(snapshot);
            Metadata meta = ks.lookup(at, c.arg(1), RedisType.LIST);
            if (meta != null) {
                elements = ListCommands.lists(c).all(at, c.arg(1), meta);
            }
        }
        List<Long> matches = new ArrayList<>();
        if (elements != null) {
            int n = elements.size();
            long skip = Math.abs(rank) - 1;
            long wanted = count == 0 ? Long.MAX_VALUE : Math.max(count, 1);
            long limit = maxLen == 0 ? n : Math.min(maxLen, n);
            for (int k = 0; k < limit && matches.size() < wanted; k++) {
                int i = rank < 0 ? n - 1 - k : k;
                if (Arrays.equals(elements.get(i), c.arg(2))) {
                    if (skip > 0) {
                        skip--;
                    } else {
                        matches.add((long) i);
                    }
                }
            }
        }
        if (count < 0) {
            if (matches.isEmpty()) {
                c.reply().nil();
            } else {
                c.reply().integer(matches.getFirst());
            }
            return;
        }
        c.reply().arrayHeader(matches.size());
        matches.forEach(c.reply()::integer);
    }

    private static long nonNegative(byte[] arg, String error) {
        Long v = Args.tryParseLong(arg);
        if (v == null || v < 0) {
            throw new RedisError(error);
        }
        return v;
    }
}
