package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.StreamStore.Consumer;
import io.varve.server.store.StreamStore.Group;
import io.varve.server.store.StreamStore.Header;
import io.varve.server.store.StreamStore.Pending;
import io.varve.server.types.RedisStreams;
import io.varve.server.types.StreamGroups;
import io.varve.server.types.StreamTrim;

import java.util.List;
import java.util.Locale;

/**
 * XINFO STREAM [FULL [COUNT n]], XINFO GROUPS and XINFO CONSUMERS, in Redis 7.0's reply shapes (maps; flat
 * arrays in RESP2). Redis's radix-tree counters describe its own nodes; Varve reports the nodes a stream of
 * that length would have ({@link StreamTrim#NODE_ENTRIES} entries each), since it keeps no nodes.
 */
final class StreamInfoCommand {

    private StreamInfoCommand() {
    }

    static void register(CommandTable.Builder b) {
        b.add("xinfo", -2, "", StreamInfoCommand::xinfo);
        b.subcommand("xinfo", "stream", -3, "readonly", 2, 2, 1);
        b.subcommand("xinfo", "groups", 3, "readonly", 2, 2, 1);
        b.subcommand("xinfo", "consumers", 4, "readonly", 2, 2, 1);
        b.subcommand("xinfo", "help", 2, "loading stale");
    }

    private static void xinfo(CommandCall c) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        Reply r = c.reply();
        switch (sub) {
            case "help" -> {
                String[] lines = {"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                    "CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.",
                    "GROUPS <key>", "    Show the stream consumer groups.",
                    "STREAM <key> [FULL [COUNT <count>]", "    Show information about the stream.",
                    "HELP", "    Prints this help."};
                r.arrayHeader(lines.length);
                for (String line : lines) {
                    r.simple(line);
                }
            }
            case "consumers" -> consumers(c);
            case "groups" -> groups(c);
            case "stream" -> stream(c);
            default -> throw StreamGroupCommands.subcommandSyntax(c);
        }
    }

    private static void consumers(CommandCall c) {
        List<Consumer> consumers = c.types().streams().groups().consumers(c.arg(2), c.arg(3));
        long now = c.keyspace().now();
        Reply r = c.reply();
        r.arrayHeader(consumers.size());
        for (Consumer consumer : consumers) {
            r.mapHeader(3);
            r.bulk("name");
            r.bulk(consumer.name());
            r.bulk("pending");
            r.integer(consumer.pending());
            r.bulk("idle");
            r.integer(Math.max(0, now - consumer.seenTime()));
        }
    }

    private static void groups(CommandCall c) {
        List<StreamGroups.Summary> groups = c.types().streams().groups().list(c.arg(2));
        Reply r = c.reply();
        r.arrayHeader(groups.size());
        for (StreamGroups.Summary s : groups) {
            Group g = s.group();
            r.mapHeader(6);
            r.bulk("name");
            r.bulk(g.name());
            r.bulk("consumers");
            r.integer(g.consumers());
            r.bulk("pending");
            r.integer(g.pending());
            writeCounters(r, s);
        }
    }

    private static void writeCounters(Reply r, StreamGroups.Summary s) {
        Group g = s.group();
        r.bulk("last-delivered-id");
        r.bulk(g.lastDelivered().toString());
        r.bulk("entries-read");
        if (g.entriesRead() < 0) {
            r.nil();
        } else {
            r.integer(g.entriesRead());
        }
        r.bulk("lag");
        if (s.lag() == null) {
            r.nil();
        } else {
            r.integer(s.lag());
        }
    }

    private static void stream(CommandCall c) {
        int options = c.argCount() - 3;
        long count = 10;
        if (options != 0) {
            if ((options != 1 && options != 3) || !c.argIs(3, "full")) {
                throw StreamGroupCommands.subcommandSyntax(c);
            }
            if (options == 3) {
                if (!c.argIs(4, "count")) {
                    throw StreamGroupCommands.subcommandSyntax(c);
                }
                count = c.argLong(5);
                if (count < 0) {
                    count = 10;
                }
            }
            full(c, count);
            return;
        }
        RedisStreams.Summary s = c.types().streams().summary(c.arg(2));
        Reply r = c.reply();
        r.mapHeader(10);
        writeHeader(r, s.length(), s.header());
        r.bulk("groups");
        r.integer(s.header().groups());
        r.bulk("first-entry");
        if (s.first() == null) {
            r.nil();
        } else {
            StreamCommands.writeEntry(r, s.first());
        }
        r.bulk("last-entry");
        if (s.last() == null) {
            r.nil();
        } else {
            StreamCommands.writeEntry(r, s.last());
        }
    }

    private static void writeHeader(Reply r, long length, Header h) {
        long nodes = (length + StreamTrim.NODE_ENTRIES - 1) / StreamTrim.NODE_ENTRIES;
        r.bulk("length");
        r.integer(length);
        r.bulk("radix-tree-keys");
        r.integer(nodes);
        r.bulk("radix-tree-nodes");
        r.integer(nodes + 1);
        r.bulk("last-generated-id");
        r.bulk(h.lastId().toString());
        r.bulk("max-deleted-entry-id");
        r.bulk(h.maxDeletedId().toString());
        r.bulk("entries-added");
        r.integer(h.entriesAdded());
        r.bulk("recorded-first-entry-id");
        r.bulk(h.firstId().toString());
    }

    private static void full(CommandCall c, long count) {
        RedisStreams.Full f = c.types().streams().full(c.arg(2), count);
        Reply r = c.reply();
        r.mapHeader(9);
        writeHeader(r, f.length(), f.header());
        r.bulk("entries");
        StreamCommands.writeEntries(r, f.entries());
        r.bulk("groups");
        r.arrayHeader(f.groups().size());
        for (StreamGroups.Detail d : f.groups()) {
            Group g = d.summary().group();
            r.mapHeader(7);
            r.bulk("name");
            r.bulk(g.name());
            writeCounters(r, d.summary());
            r.bulk("pel-count");
            r.integer(g.pending());
            r.bulk("pending");
            r.arrayHeader(d.pending().size());
            for (Pending p : d.pending()) {
                r.arrayHeader(4);
                r.bulk(p.id().toString());
                r.bulk(p.consumer());
                r.integer(p.deliveryTime());
                r.integer(p.deliveryCount());
            }
            r.bulk("consumers");
            r.arrayHeader(d.consumers().size());
            for (StreamGroups.ConsumerDetail cd : d.consumers()) {
                r.mapHeader(4);
                r.bulk("name");
                r.bulk(cd.consumer().name());
                r.bulk("seen-time");
                r.integer(cd.consumer().seenTime());
                r.bulk("pel-count");
                r.integer(cd.consumer().pending());
                r.bulk("pending");
                r.arrayHeader(cd.pending().size());
                for (Pending p : cd.pending()) {
                    r.arrayHeader(3);
                    r.bulk(p.id().toString());
                    r.integer(p.deliveryTime());
                    r.integer(p.deliveryCount());
                }
            }
        }
    }
}
