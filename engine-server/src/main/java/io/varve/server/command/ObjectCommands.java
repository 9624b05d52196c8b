package io.varve.server.command;

import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.KeyCopier;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * COPY and OBJECT. COPY works on any type through {@link KeyCopier} (a collection's subkeys are copied
 * under a fresh version). OBJECT ENCODING names the encoding Redis 7.0 would pick for the value under the
 * configured thresholds (hash-max-listpack-entries and the others), so clients and tools that branch on it see
 * the familiar names; Varve's own layout is the same for every size, so a collection that shrinks back under a
 * threshold is reported compact again, where Redis would keep the larger encoding. Redis 7.0's names are the
 * ones its test suite checks (engine-server/bench/redis-suite.sh): every list is a quicklist and a set is an
 * intset or a hashtable, where Redis 7.2 reports a listpack for small lists and sets. There is no LRU/LFU bookkeeping, so IDLETIME is 0, REFCOUNT 1, and FREQ
 * fails as Redis's does under the reported maxmemory-policy (noeviction).
 */
final class ObjectCommands {

    /** Redis's longest string kept in one allocation with its object header. */
    static final int EMBSTR_LIMIT = 44;

    private ObjectCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("copy", -3, "write denyoom", 1, 2, 1, ObjectCommands::copy);
        b.add("object", -2, "", ObjectCommands::object);
        for (String sub : List.of("encoding", "freq", "idletime", "refcount")) {
            b.subcommand("object", sub, 3, "readonly", 2, 2, 1);
        }
        b.subcommand("object", "help", 2, "loading stale");
    }

    /**
     * COPY source destination [DB n] [REPLACE]: {@code destination} of logical database {@code n} (default:
     * the current one) becomes a copy of {@code source}, unless it exists and REPLACE is absent. Clients
     * blocked on the destination in that database are then served.
     */
    private static void copy(CommandCall c) {
        boolean replace = false;
        int current = c.connection().database();
        int target = current;
        for (int i = 3; i < c.argCount(); i++) {
            if (c.argIs(i, "replace")) {
                replace = true;
            } else if (c.argIs(i, "db") && i + 1 < c.argCount()) {
                target = databaseIndex(c, ++i);
            } else {
                throw RedisError.syntax();
            }
        }
        byte[] from = c.arg(1);
        byte[] to = c.arg(2);
        if (target == current && Arrays.equals(from, to)) {
            throw new RedisError("ERR source and destination objects are the same");
        }
        Keyspace ks = c.keyspace();
        KeyCopier copier = new KeyCopier(ks);
        int destination = ks.databases().physical(target);
        boolean overwrite = replace;
        try (LockStripes.Held held = ks.lockAll(from, to)) {
            byte[] raw = copier.liveRawMetadata(ReadOptions.DEFAULT, from);
            boolean copied = raw != null && ScopedValue.where(KeyEncoding.DATABASE, destination).call(() -> {
                if (!overwrite && ks.header(to) != null) {
                    return false;
                }
                WriteBatch batch = new WriteBatch();
                copier.copy(ReadOptions.DEFAULT, batch, from, raw, to); // subkeys carry no database
                ks.commit(batch);
                return true;
            });
            c.reply().integer(copied ? 1 : 0);
            if (!copied) {
                return;
            }
        }
        ks.blocking().signal(destination, to);
    }

    /** COPY's DB argument: a logical database index, with Redis's errors for anything else. */
    private static int databaseIndex(CommandCall c, int i) {
        Long n = Args.tryParseLong(c.arg(i));
        if (n == null || n != (int) (long) n) {
            throw new RedisError("ERR value is not an integer or out of range");
        }
        if (n < 0 || n >= c.keyspace().databases().count()) {
            throw new RedisError("ERR DB index is out of range");
        }
        return (int) (long) n;
    }

    /** The logical database a successful COPY wrote its destination in, for marking its watchers. */
    static int targetDatabase(byte[][] args, int current) {
        int target = current;
        for (int i = 3; i + 1 < args.length; i++) {
            if (Args.isKeyword(args[i], "db")) {
                target = Args.tryParseLong(args[++i]).intValue(); // COPY accepted it: the last DB counts
            }
        }
        return target;
    }

    private static void object(CommandCall c) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        if (sub.equals("help")) {
            help(c.reply());
            return;
        }
        if (!sub.equals("encoding") && !sub.equals("refcount") && !sub.equals("idletime") && !sub.equals("freq")) {
            throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try OBJECT HELP.");
        }
        if (c.argCount() != 3) {
            throw RedisError.wrongArity("object|" + sub);
        }
        Metadata meta = c.keyspace().lookup(c.arg(2));
        Reply r = c.reply();
        if (meta == null) {
            r.nil();
            return;
        }
        switch (sub) {
            case "encoding" -> r.bulk(encoding(c, c.arg(2), meta));
            case "refcount" -> r.integer(1);
            case "idletime" -> r.integer(0);
            default -> throw new RedisError("ERR An LFU maxmemory policy is not selected, access frequency not "
                    + "tracked. Please note that when switching between policies at runtime LRU and LFU data "
                    + "will take some time to adjust.");
        }
    }

    /** The encoding name Redis would report for this value under the configured thresholds. */
    static String encoding(CommandCall c, byte[] key, Metadata meta) {
        Map<String, String> config = c.server().configuration();
        return switch (meta.type()) {
            case STRING -> {
                byte[] v = meta.value();
                if (v.length <= 20 && Args.tryParseLong(v) != null) {
                    yield "int";
                }
                yield v.length <= EMBSTR_LIMIT ? "embstr" : "raw";
            }
            case HASH -> compactFields(c, key, meta, false, threshold(config, "hash-max-listpack-entries", 512),
                    threshold(config, "hash-max-listpack-value", 64)) ? "listpack" : "hashtable";
            case ZSET -> compactFields(c, key, meta, true, threshold(config, "zset-max-listpack-entries", 128),
                    threshold(config, "zset-max-listpack-value", 64)) ? "listpack" : "skiplist";
            case LIST -> "quicklist";
            case SET -> setEncoding(c, key, meta, config);
            case STREAM -> "stream";
        };
    }

    private static long threshold(Map<String, String> config, String name, long fallback) {
        Long value = config == null || config.get(name) == null ? null
                : Args.tryParseLong(config.get(name).trim().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return value == null ? fallback : value;
    }

    /**
     * Whether a hash or sorted set is small enough for a listpack: at most {@code maxEntries} elements, none
     * longer than {@code maxValue} bytes (hash fields and values; sorted-set members). Reads at most
     * {@code maxEntries} elements.
     */
    private static boolean compactFields(CommandCall c, byte[] key, Metadata meta, boolean zset, long maxEntries,
                                         long maxValue) {
        if (meta.size() > maxEntries) {
            return false;
        }
        boolean[] small = {true};
        if (zset) {
            c.types().sortedSets().forEachByMember(key, null, (m, s) -> {
                small[0] = m.length <= maxValue;
                return small[0];
            });
        } else {
            c.types().hashes().forEach(key, null, (f, v) -> {
                small[0] = f.length <= maxValue && v.length <= maxValue;
                return small[0];
            });
        }
        return small[0];
    }

    /** Sets: all integers and at most set-max-intset-entries members is an intset, the rest a hashtable. */
    private static String setEncoding(CommandCall c, byte[] key, Metadata meta, Map<String, String> config) {
        long intsetEntries = threshold(config, "set-max-intset-entries", 512);
        if (meta.size() > intsetEntries) {
            return "hashtable";
        }
        boolean[] integers = {true};
        c.types().sets().forEach(key, null, member -> {
            integers[0] = Args.tryParseLong(member) != null;
            return integers[0];
        });
        return integers[0] ? "intset" : "hashtable";
    }

    private static void help(Reply r) {
        String[] lines = {"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "ENCODING <key>", "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>", "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>", "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>", "    Return the number of references of the value associated with the specified",
            "    <key>.",
            "HELP", "    Print this help."};
        r.arrayHeader(lines.length);
        for (String line : lines) {
            r.simple(line);
        }
    }
}
