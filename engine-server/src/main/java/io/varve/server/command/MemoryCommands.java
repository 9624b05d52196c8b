package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Metadata;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP. Varve keeps values in the LSM engine, not in
 * per-key heap objects, so USAGE is an estimate from the key's metadata in Redis's terms (the bytes of the key
 * and its value, and per-element overhead for collections): comparable between keys, not a heap measurement.
 * STATS reports the JVM's heap and the key counts under Redis's field names.
 */
final class MemoryCommands {

    /** What Redis's object header and dictionary entry cost per key, and per collection element. */
    private static final long KEY_OVERHEAD = 56;
    private static final long ELEMENT_OVERHEAD = 24;

    private MemoryCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("memory", -2, "", MemoryCommands::memory);
        b.subcommand("memory", "usage", -3, "readonly", 2, 2, 1);
        b.subcommand("memory", "stats", 2, "");
        b.subcommand("memory", "doctor", 2, "");
        b.subcommand("memory", "malloc-stats", 2, "");
        b.subcommand("memory", "purge", 2, "");
        b.subcommand("memory", "help", 2, "loading stale");
    }

    private static void memory(CommandCall c) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        switch (sub) {
            case "usage" -> usage(c);
            case "stats" -> stats(c);
            case "doctor" -> c.reply().verbatim("Hi Sam, this instance is a Varve server: values live in its LSM "
                    + "engine, not in the heap, so there is no fragmentation or peak-memory advice to give. INFO "
                    + "memory and INFO engine report the heap, the off-heap memtables and the files on disk.");
            case "malloc-stats" -> c.reply().verbatim("Stats not supported for the current allocator");
            case "purge" -> c.reply().ok();
            case "help" -> help(c.reply());
            default -> throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try MEMORY HELP.");
        }
    }

    /** MEMORY USAGE key [SAMPLES count]: nil for a missing key. */
    private static void usage(CommandCall c) {
        for (int i = 3; i < c.argCount(); i++) {
            if (c.argIs(i, "samples") && i + 1 < c.argCount()) {
                long samples = c.argLong(++i);
                if (samples < 0) {
                    throw RedisError.syntax();
                }
            } else {
                throw RedisError.syntax();
            }
        }
        byte[] key = c.arg(2);
        Metadata meta = c.keyspace().lookup(key);
        if (meta == null) {
            c.reply().nil();
            return;
        }
        long bytes = KEY_OVERHEAD + key.length;
        bytes += switch (meta.type()) {
            case STRING -> meta.value().length;
            case HASH -> meta.size() * 2 * ELEMENT_OVERHEAD;
            default -> meta.size() * ELEMENT_OVERHEAD;
        };
        c.reply().integer(bytes);
    }

    private static void stats(CommandCall c) {
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        long[] counts = c.keyspace().countKeys();
        long keys = counts.length == 0 ? 0 : counts[0];
        Map<String, Long> fields = new LinkedHashMap<>();
        fields.put("peak.allocated", rt.totalMemory());
        fields.put("total.allocated", used);
        fields.put("startup.allocated", 0L);
        fields.put("replication.backlog", 0L);
        fields.put("clients.slaves", 0L);
        fields.put("clients.normal", 0L);
        fields.put("cluster.links", 0L);
        fields.put("aof.buffer", 0L);
        fields.put("lua.caches", 0L);
        fields.put("functions.caches", 0L);
        fields.put("overhead.total", 0L);
        fields.put("keys.count", keys);
        fields.put("keys.bytes-per-key", keys == 0 ? 0 : used / keys);
        fields.put("dataset.bytes", used);
        Reply r = c.reply();
        r.mapHeader(fields.size());
        fields.forEach((name, value) -> {
            r.bulk(name);
            r.integer(value);
        });
    }

    private static void help(Reply r) {
        List<String> lines = List.of("MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "DOCTOR", "    Return memory problems reports.",
                "MALLOC-STATS", "    Return internal statistics report from the memory allocator.",
                "PURGE", "    Attempt to purge dirty pages for reclamation by the allocator.",
                "STATS", "    Return information about the memory usage of the server.",
                "USAGE <key> [SAMPLES <count>]",
                "    Return memory in bytes used by <key> and its value. Nested values are",
                "    sampled up to <count> times (default: 5, 0 means sample all).",
                "HELP", "    Print this help.");
        r.arrayHeader(lines.size());
        for (String line : lines) {
            r.simple(line);
        }
    }
}
