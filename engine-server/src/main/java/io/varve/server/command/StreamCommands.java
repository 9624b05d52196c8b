package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore.Entry;
import io.varve.server.types.StreamTrim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** XADD, XRANGE, XREVRANGE, XLEN, XDEL, XTRIM and XSETID (the stream's entries; groups and reads elsewhere). */
final class StreamCommands {

    private StreamCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("xadd", -5, "write denyoom fast", 1, 1, 1, StreamCommands::xadd);
        b.add("xrange", -4, "readonly", 1, 1, 1, c -> range(c, false));
        b.add("xrevrange", -4, "readonly", 1, 1, 1, c -> range(c, true));
        b.add("xlen", 2, "readonly fast", 1, 1, 1, c -> c.reply().integer(c.types().streams().length(c.arg(1))));
        b.add("xdel", -3, "write fast", 1, 1, 1, StreamCommands::xdel);
        b.add("xtrim", -4, "write", 1, 1, 1, StreamCommands::xtrim);
        b.add("xsetid", -3, "write denyoom fast", 1, 1, 1, StreamCommands::xsetid);
    }

    /** XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT n]] *|id field value [field value ...] */
    private static void xadd(CommandCall c) {
        StreamArgs.Options options = StreamArgs.parseOptions(c, true);
        int fields = c.argCount() - options.next() - 1;
        if (fields < 2 || fields % 2 != 0) {
            throw RedisError.wrongArity("xadd");
        }
        StreamArgs.GivenId given = options.id();
        if (given != null && given.seqGiven() && given.id().isZero()) {
            throw new RedisError("ERR The ID specified in XADD must be greater than 0-0");
        }
        List<byte[]> items = Arrays.asList(c.args()).subList(options.next() + 1, c.argCount());
        StreamId id = c.types().streams().add(c.arg(1), given == null ? null : given.id(),
                given == null || given.seqGiven(), options.noMkStream(), options.trim(), items);
        if (id == null) {
            c.reply().nil();
        } else {
            c.reply().bulk(id.toString());
        }
    }

    /** XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n] */
    private static void range(CommandCall c, boolean reverse) {
        StreamId start = StreamArgs.rangeStart(c.arg(reverse ? 3 : 2));
        StreamId end = StreamArgs.rangeEnd(c.arg(reverse ? 2 : 3));
        long count = -1;
        for (int i = 4; i < c.argCount(); i++) {
            if (c.argIs(i, "count") && i + 1 < c.argCount()) {
                count = Math.max(0, c.argLong(++i));
            } else {
                throw RedisError.syntax();
            }
        }
        long limit = count < 0 ? 0 : Math.max(count, 1); // COUNT 0 still checks the key's type
        List<Entry> entries = c.types().streams().range(c.arg(1), start, end, reverse, limit);
        if (count == 0 && c.types().keys().exists(c.arg(1))) {
            c.reply().nullArray();
            return;
        }
        writeEntries(c.reply(), count == 0 ? List.of() : entries);
    }

    /** XDEL key id [id ...] */
    private static void xdel(CommandCall c) {
        List<StreamId> ids = new ArrayList<>();
        for (int i = 2; i < c.argCount(); i++) {
            ids.add(StreamArgs.strictId(c.arg(i)));
        }
        c.reply().integer(c.types().streams().delete(c.arg(1), ids));
    }

    /** XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT n] */
    private static void xtrim(CommandCall c) {
        StreamTrim trim = StreamArgs.parseOptions(c, false).trim();
        c.reply().integer(c.types().streams().trim(c.arg(1), trim));
    }

    /** XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id] */
    private static void xsetid(CommandCall c) {
        StreamId id = StreamArgs.strictId(c.arg(2));
        long entriesAdded = -1;
        StreamId maxDeleted = null;
        for (int i = 3; i < c.argCount(); i++) {
            boolean more = i + 1 < c.argCount();
            if (c.argIs(i, "entriesadded") && more) {
                entriesAdded = c.argLong(++i);
                if (entriesAdded < 0) {
                    throw new RedisError("ERR entries_added must be positive");
                }
            } else if (c.argIs(i, "maxdeletedid") && more) {
                maxDeleted = StreamArgs.strictId(c.arg(++i));
                if (id.compareTo(maxDeleted) < 0) {
                    throw new RedisError("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                }
            } else {
                throw RedisError.syntax();
            }
        }
        c.types().streams().setId(c.arg(1), id, entriesAdded, maxDeleted);
        c.reply().ok();
    }

    /** Entries as Redis replies with them: [[id, [field, value, ...]], ...]; a deleted one is [id, nil]. */
    static void writeEntries(Reply r, List<Entry> entries) {
        r.arrayHeader(entries.size());
        for (Entry e : entries) {
            writeEntry(r, e);
        }
    }

    static void writeEntry(Reply r, Entry e) {
        r.arrayHeader(2);
        r.bulk(e.id().toString());
        if (e.items() == null) {
            r.nullArray();
            return;
        }
        r.arrayHeader(e.items().size());
        for (byte[] item : e.items()) {
            r.bulk(item);
        }
    }
}
