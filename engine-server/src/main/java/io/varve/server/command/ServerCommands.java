package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.types.ServedKeys;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** INFO, CONFIG, DBSIZE, FLUSHDB, FLUSHALL, SHUTDOWN, TIME: commands about the server. */
final class ServerCommands {

    private ServerCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("info", -1, "loading stale", ServerCommands::info);
        b.add("config", -2, "", ServerCommands::config);
        b.subcommand("config", "get", -3, "admin noscript loading stale");
        b.subcommand("config", "set", -4, "admin noscript loading stale");
        b.subcommand("config", "resetstat", 2, "admin noscript loading stale");
        b.subcommand("config", "rewrite", 2, "admin noscript loading stale");
        b.add("dbsize", 1, "readonly fast", ServerCommands::dbsize);
        b.add("flushdb", -1, "write touches_database", ServerCommands::flush);
        b.add("flushall", -1, "write touches_all_databases", ServerCommands::flush);
        b.add("shutdown", -1, "admin noscript loading stale no_multi allow_busy", ServerCommands::shutdown);
        b.add("time", 1, "loading stale fast random", c -> {
            long micros = java.time.Instant.now().toEpochMilli() * 1000 + (System.nanoTime() / 1000) % 1000;
            c.reply().arrayHeader(2);
            c.reply().bulk(Long.toString(micros / 1_000_000));
            c.reply().bulk(Long.toString(micros % 1_000_000));
        });
    }

    private static void info(CommandCall c) {
        List<String> sections = new ArrayList<>();
        for (int i = 1; i < c.argCount(); i++) {
            sections.add(c.argText(i).toLowerCase(Locale.ROOT));
        }
        c.reply().bulk(c.server().info(sections));
    }

    private static void config(CommandCall c) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        switch (sub) {
            case "get" -> {
                if (c.argCount() < 3) {
                    throw RedisError.wrongArity("config|get");
                }
                Map<String, String> all = c.server().configuration();
                List<Map.Entry<String, String>> matched = new ArrayList<>();
                for (Map.Entry<String, String> e : all.entrySet()) {
                    for (int i = 2; i < c.argCount(); i++) {
                        Glob glob = new Glob(c.argText(i).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
                        if (glob.matches(e.getKey().getBytes(StandardCharsets.UTF_8))) {
                            matched.add(e);
                            break;
                        }
                    }
                }
                c.reply().mapHeader(matched.size());
                for (Map.Entry<String, String> e : matched) {
                    c.reply().bulk(e.getKey());
                    c.reply().bulk(e.getValue());
                }
            }
            case "set" -> {
                if (c.argCount() < 4 || c.argCount() % 2 != 0) {
                    throw RedisError.wrongArity("config|set");
                }
                Map<String, String> settings = new LinkedHashMap<>();
                for (int i = 2; i < c.argCount(); i += 2) {
                    String name = c.argText(i).toLowerCase(Locale.ROOT);
                    if (settings.put(name, c.argText(i + 1)) != null) {
                        throw new RedisError("ERR CONFIG SET failed (possibly related to argument '" + name
                                + "') - duplicate parameter");
                    }
                }
                c.server().configSet(settings);
                c.reply().ok();
            }
            case "resetstat" -> {
                c.server().resetStats();
                c.reply().ok();
            }
            case "rewrite" -> {
                c.server().configRewrite();
                c.reply().ok();
            }
            default -> throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try CONFIG HELP.");
        }
    }

    private static void flush(CommandCall c) {
        if (c.argCount() > 2 || (c.argCount() == 2 && !c.argIs(1, "async") && !c.argIs(1, "sync"))) {
            throw RedisError.syntax();
        }
        ServedSlots served = c.server().routing().servedSlots();
        if (!served.everySlot()) {
            flushServedGroups(c, served);
        } else if (c.spec().name().equals("flushdb")) {
            c.keyspace().flushDatabase();
        } else {
            c.keyspace().flushAll();
        }
        c.reply().ok();
    }

    /**
     * A cluster node's FLUSHALL/FLUSHDB, as in Redis Cluster: the keys of the slots it serves, group by group
     * (each group's deletes go through that group's log), so the other nodes' slots keep their keys.
     */
    private static void flushServedGroups(CommandCall c, ServedSlots served) {
        if (!served.led()) {
            throw new RedisError("READONLY You can't write against a read only replica.");
        }
        for (java.util.BitSet slots : served.groups()) {
            c.keyspace().flushSlots(slots);
        }
    }

    /** DBSIZE: a cluster node counts the keys of the slots it serves, as a Redis Cluster node does. */
    private static void dbsize(CommandCall c) {
        ServedSlots served = c.server().routing().servedSlots();
        c.reply().integer(served.everySlot() ? c.keyspace().countKeys()[0]
                : ServedKeys.count(c.keyspace(), served.slots()));
    }

    private static void shutdown(CommandCall c) {
        for (int i = 1; i < c.argCount(); i++) {
            if (c.argIs(i, "abort")) {
                throw new RedisError("ERR No shutdown in progress.");
            }
            if (!c.argIs(i, "nosave") && !c.argIs(i, "save") && !c.argIs(i, "now") && !c.argIs(i, "force")) {
                throw RedisError.syntax();
            }
        }
        // Like Redis, a successful SHUTDOWN sends no reply: the connection just closes.
        c.connection().requestCloseWithoutReply();
        c.server().requestShutdown();
    }
}
