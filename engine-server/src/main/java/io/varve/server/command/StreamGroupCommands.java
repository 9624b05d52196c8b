package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore.Consumer;
import io.varve.server.store.StreamStore.Entry;
import io.varve.server.store.StreamStore.Pending;
import io.varve.server.types.StreamGroups;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** XGROUP, XACK, XPENDING, XCLAIM and XAUTOCLAIM: consumer groups and their pending entries. */
final class StreamGroupCommands {

    private StreamGroupCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("xgroup", -2, "", StreamGroupCommands::xgroup);
        b.subcommand("xgroup", "create", -5, "write denyoom", 2, 2, 1);
        b.subcommand("xgroup", "setid", -5, "write", 2, 2, 1);
        b.subcommand("xgroup", "destroy", 4, "write", 2, 2, 1);
        b.subcommand("xgroup", "createconsumer", 5, "write denyoom", 2, 2, 1);
        b.subcommand("xgroup", "delconsumer", 5, "write", 2, 2, 1);
        b.subcommand("xgroup", "help", 2, "loading stale");
        b.add("xack", -4, "write fast", 1, 1, 1, StreamGroupCommands::xack);
        b.add("xpending", -3, "readonly", 1, 1, 1, StreamGroupCommands::xpending);
        b.add("xclaim", -6, "write fast", 1, 1, 1, StreamGroupCommands::xclaim);
        b.add("xautoclaim", -6, "write fast", 1, 1, 1, StreamGroupCommands::xautoclaim);
    }

    private static StreamGroups groups(CommandCall c) {
        return c.types().streams().groups();
    }

    static RedisError subcommandSyntax(CommandCall c) {
        return new RedisError("ERR unknown subcommand or wrong number of arguments for '" + c.argText(1)
                + "'. Try " + c.argText(0).toUpperCase(Locale.ROOT) + " HELP.");
    }

    private static void xgroup(CommandCall c) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        if (sub.equals("help")) {
            help(c.reply());
            return;
        }
        boolean mkStream = false;
        long entriesRead = -1;
        for (int i = 5; i < c.argCount(); i++) {
            if (sub.equals("create") && c.argIs(i, "mkstream")) {
                mkStream = true;
            } else if ((sub.equals("create") || sub.equals("setid")) && c.argIs(i, "entriesread")
                    && i + 1 < c.argCount()) {
                entriesRead = c.argLong(++i);
                if (entriesRead < 0 && entriesRead != -1) {
                    throw new RedisError("ERR value for ENTRIESREAD must be positive or -1");
                }
            } else {
                throw subcommandSyntax(c);
            }
        }
        byte[] key = c.arg(2);
        byte[] group = c.arg(3);
        Reply r = c.reply();
        switch (sub) {
            case "create" -> {
                if (c.argCount() > 8) {
                    throw subcommandSyntax(c);
                }
                StreamId id = dollar(c.arg(4)) ? null : StreamArgs.strictId(c.arg(4));
                groups(c).create(key, group, id, mkStream, entriesRead);
                r.ok();
            }
            case "setid" -> {
                if (c.argCount() != 5 && c.argCount() != 7) {
                    throw subcommandSyntax(c);
                }
                StreamId id = dollar(c.arg(4)) ? null : StreamArgs.id(c.arg(4), 0);
                groups(c).setId(key, group, id, entriesRead);
                r.ok();
            }
            case "destroy" -> r.integer(groups(c).destroy(key, group) ? 1 : 0);
            case "createconsumer" -> r.integer(groups(c).createConsumer(key, group, c.arg(4)) ? 1 : 0);
            case "delconsumer" -> r.integer(groups(c).deleteConsumer(key, group, c.arg(4)));
            default -> throw subcommandSyntax(c);
        }
    }

    private static boolean dollar(byte[] arg) {
        return arg.length == 1 && arg[0] == '$';
    }

    private static void help(Reply r) {
        String[] lines = {"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CREATE <key> <groupname> <id|$> [option]",
            "    Create a new consumer group. Options are:",
            "    * MKSTREAM",
            "      Create the empty stream if it does not exist.",
            "    * ENTRIESREAD entries_read",
            "      Set the group's entries_read counter (internal use).",
            "CREATECONSUMER <key> <groupname> <consumer>",
            "    Create a new consumer in the specified group.",
            "DELCONSUMER <key> <groupname> <consumer>",
            "    Remove the specified consumer.",
            "DESTROY <key> <groupname>",
            "    Remove the specified group.",
            "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
            "    Set the current group ID and entries_read counter.",
            "HELP",
            "    Prints this help."};
        r.arrayHeader(lines.length);
        for (String line : lines) {
            r.simple(line);
        }
    }

    /** XACK key group id [id ...] */
    private static void xack(CommandCall c) {
        List<StreamId> ids = new ArrayList<>();
        for (int i = 3; i < c.argCount(); i++) {
            ids.add(StreamArgs.strictId(c.arg(i)));
        }
        c.reply().integer(groups(c).ack(c.arg(1), c.arg(2), ids));
    }

    /** XPENDING key group [[IDLE min-idle] start end count [consumer]] */
    private static void xpending(CommandCall c) {
        int argc = c.argCount();
        if (argc != 3 && (argc < 6 || argc > 9)) {
            throw RedisError.syntax();
        }
        Reply r = c.reply();
        if (argc == 3) {
            StreamGroups.PendingSummary s = groups(c).pendingSummary(c.arg(1), c.arg(2));
            r.arrayHeader(4);
            r.integer(s.count());
            if (s.lowest() == null) {
                r.nil();
                r.nil();
                r.nullArray();
                return;
            }
            r.bulk(s.lowest().toString());
            r.bulk(s.highest().toString());
            r.arrayHeader(s.consumers().size());
            for (Consumer consumer : s.consumers()) {
                r.arrayHeader(2);
                r.bulk(consumer.name());
                r.bulk(Long.toString(consumer.pending()));
            }
            return;
        }
        int start = 3;
        long minIdle = 0;
        if (c.argIs(3, "idle")) {
            minIdle = c.argLong(4);
            if (argc < 8) {
                throw RedisError.syntax();
            }
            start += 2;
        }
        long count = Math.max(0, c.argLong(start + 2));
        StreamId from = StreamArgs.rangeStart(c.arg(start));
        StreamId to = StreamArgs.rangeEnd(c.arg(start + 1));
        byte[] consumer = start + 3 < argc ? c.arg(start + 3) : null;
        List<Pending> pending = groups(c).pendingRange(c.arg(1), c.arg(2), minIdle, from, to, count, consumer);
        long now = c.keyspace().now();
        r.arrayHeader(pending.size());
        for (Pending p : pending) {
            r.arrayHeader(4);
            r.bulk(p.id().toString());
            r.bulk(p.consumer());
            r.integer(Math.max(0, now - p.deliveryTime()));
            r.integer(p.deliveryCount());
        }
    }

    /** XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT n] [FORCE] [JUSTID] [LASTID id] */
    private static void xclaim(CommandCall c) {
        groups(c).requireGroupOf(c.arg(1), c.arg(2));
        long minIdle = longOr(c.arg(4), "ERR Invalid min-idle-time argument for XCLAIM");
        List<StreamId> ids = new ArrayList<>();
        int i = 5;
        for (; i < c.argCount(); i++) {
            try {
                ids.add(StreamArgs.strictId(c.arg(i)));
            } catch (RedisError notAnId) {
                break;
            }
        }
        long now = c.keyspace().now();
        long deliveryTime = -1;
        long retryCount = -1;
        boolean force = false;
        boolean justId = false;
        StreamId lastId = null;
        for (; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "force")) {
                force = true;
            } else if (c.argIs(i, "justid")) {
                justId = true;
            } else if (c.argIs(i, "idle") && more) {
                deliveryTime = now - longOr(c.arg(++i), "ERR Invalid IDLE option argument for XCLAIM");
            } else if (c.argIs(i, "time") && more) {
                deliveryTime = longOr(c.arg(++i), "ERR Invalid TIME option argument for XCLAIM");
            } else if (c.argIs(i, "retrycount") && more) {
                retryCount = longOr(c.arg(++i), "ERR Invalid RETRYCOUNT option argument for XCLAIM");
            } else if (c.argIs(i, "lastid") && more) {
                lastId = StreamArgs.strictId(c.arg(++i));
            } else {
                throw new RedisError("ERR Unrecognized XCLAIM option '" + c.argText(i) + "'");
            }
        }
        List<Entry> claimed = groups(c).claim(c.arg(1), c.arg(2), c.arg(3), Math.max(0, minIdle), ids,
                new StreamGroups.ClaimOptions(deliveryTime, retryCount, force, justId, lastId));
        writeClaimed(c.reply(), claimed);
    }

    private static long longOr(byte[] arg, String error) {
        Long v = Args.tryParseLong(arg);
        if (v == null) {
            throw new RedisError(error);
        }
        return v;
    }

    /** Claimed entries, or their IDs alone when claimed with JUSTID (items null). */
    private static void writeClaimed(Reply r, List<Entry> claimed) {
        r.arrayHeader(claimed.size());
        for (Entry e : claimed) {
            if (e.items() == null) {
                r.bulk(e.id().toString());
            } else {
                StreamCommands.writeEntry(r, e);
            }
        }
    }

    /** XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID] */
    private static void xautoclaim(CommandCall c) {
        long minIdle = Math.max(0, longOr(c.arg(4), "ERR Invalid min-idle-time argument for XAUTOCLAIM"));
        StreamId start = StreamArgs.rangeStart(c.arg(5));
        long count = 100;
        boolean justId = false;
        for (int i = 6; i < c.argCount(); i++) {
            if (c.argIs(i, "count") && i + 1 < c.argCount()) {
                Long n = Args.tryParseLong(c.arg(++i));
                if (n == null || n < 1 || n > Long.MAX_VALUE / 16) {
                    throw new RedisError("ERR COUNT must be > 0");
                }
                count = n;
            } else if (c.argIs(i, "justid")) {
                justId = true;
            } else {
                throw RedisError.syntax();
            }
        }
        StreamGroups.AutoClaimed result = groups(c).autoClaim(c.arg(1), c.arg(2), c.arg(3), minIdle, start, count,
                justId);
        Reply r = c.reply();
        r.arrayHeader(3);
        r.bulk(result.next().toString());
        writeClaimed(r, result.claimed());
        r.arrayHeader(result.deleted().size());
        for (StreamId id : result.deleted()) {
            r.bulk(id.toString());
        }
    }
}
