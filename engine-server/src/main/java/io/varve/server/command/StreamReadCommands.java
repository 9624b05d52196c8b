package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.RedisType;
import io.varve.server.store.StreamId;
import io.varve.server.store.StreamStore.Entry;
import io.varve.server.types.StreamGroups;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * XREAD and XREADGROUP. Both answer at once when a stream has entries after the ID asked for (XREADGROUP
 * with an explicit ID always answers: it reads the consumer's own history); otherwise, with BLOCK, the
 * client parks on the keys ({@link BlockedClient}) until XADD signals one, and is then served from that key
 * alone, as Redis does. The check and the registration happen under the keys' locks, so an XADD in between
 * cannot be missed. Stream readers do not take what they read, so one that finds nothing new does not stop
 * the waiters behind it from being offered the key (another group, an older ID).
 *
 * <p>XREADGROUP writes (pending entries, the group's last ID, consumers), so it marks the watchers of what it
 * served itself, as blocking commands do.
 */
final class StreamReadCommands {

    /** What a blocked reader takes at most without COUNT, as Redis caps it. */
    private static final long BLOCKED_DEFAULT_COUNT = 1000;

    private StreamReadCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("xread", -4, "readonly blocking", List.of(KeySpec.afterKeyword("STREAMS", 1)),
                (BlockingHandler) (c, d) -> read(c, d, false));
        b.add("xreadgroup", -7, "write blocking", List.of(KeySpec.afterKeyword("STREAMS", 4)),
                (BlockingHandler) (c, d) -> read(c, d, true));
    }

    /** A parsed XREAD/XREADGROUP. {@code ids} holds null for XREADGROUP's {@code >} and XREAD's {@code $}. */
    private record Request(long timeoutNanos, long count, List<byte[]> keys, List<StreamId> ids, byte[] group,
                           byte[] consumer, boolean noAck) {
    }

    private static void read(CommandCall c, Dispatcher d, boolean grouped) {
        Request request = parse(c, grouped);
        Keyspace ks = c.keyspace();
        List<byte[]> keys = request.keys();
        List<StreamId> after = new ArrayList<>(request.ids());
        try (LockStripes.Held held = ks.lockAll(keys.toArray(new byte[0][]))) {
            if (!grouped) {
                for (int i = 0; i < keys.size(); i++) {
                    if (after.get(i) == null) {
                        after.set(i, c.types().streams().lastId(keys.get(i)));
                    }
                }
            }
            List<byte[]> servedKeys = new ArrayList<>();
            List<List<Entry>> served = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                byte[] key = keys.get(i);
                List<Entry> entries;
                if (!grouped) {
                    entries = c.types().streams().readAfter(key, after.get(i), request.count(), false);
                } else if (after.get(i) == null) {
                    StreamGroups.Read read = groups(c).readNew(key, request.group(), request.consumer(),
                            request.count(), request.noAck());
                    entries = read == null ? List.of() : read.entries();
                } else {
                    entries = groups(c).readHistory(key, request.group(), request.consumer(), after.get(i),
                            request.count()).entries();
                    servedKeys.add(key);
                    served.add(entries);
                    continue;
                }
                if (!entries.isEmpty()) {
                    servedKeys.add(key);
                    served.add(entries);
                }
            }
            if (!servedKeys.isEmpty()) {
                if (grouped) {
                    BlockingHandler.touch(c, d, servedKeys.toArray(new byte[0][]));
                }
                writeRead(c.reply(), servedKeys, served);
                return;
            }
            if (request.timeoutNanos() < 0 || !BlockedClient.canPark(c)) {
                c.reply().nullArray();
                return;
            }
            long count = request.count() == 0 ? BLOCKED_DEFAULT_COUNT : request.count();
            BlockedClient.park(c, keys, request.timeoutNanos(),
                    readyKey -> serve(c, d, request, keys, after, count, readyKey), Reply::nullArray, true);
        }
    }

    /** A blocked reader offered {@code readyKey}: its reply, or null to keep waiting. */
    private static Consumer<Reply> serve(CommandCall c, Dispatcher d, Request request, List<byte[]> keys,
                                         List<StreamId> after, long count, byte[] readyKey) {
        int at = -1;
        for (int i = 0; i < keys.size() && at < 0; i++) {
            at = Arrays.equals(keys.get(i), readyKey) ? i : -1;
        }
        if (at < 0) {
            return null;
        }
        try (LockStripes.Held ready = c.keyspace().lock(readyKey)) {
            List<Entry> entries;
            if (request.group() == null) {
                entries = c.types().streams().readAfter(readyKey, after.get(at), count, true);
            } else {
                StreamGroups.Read read = groups(c).readNew(readyKey, request.group(), request.consumer(), count,
                        request.noAck());
                if (read == null) {
                    String error = c.types().keys().type(readyKey) == RedisType.STREAM
                            ? "NOGROUP the consumer group this client was blocked on no longer exists"
                            : "UNBLOCKED the stream key no longer exists";
                    return r -> r.error(error);
                }
                entries = read.entries();
                if (!entries.isEmpty()) {
                    BlockingHandler.touch(c, d, readyKey);
                }
            }
            if (entries.isEmpty()) {
                return null;
            }
            return r -> writeRead(r, List.of(readyKey), List.of(entries));
        }
    }

    private static StreamGroups groups(CommandCall c) {
        return c.types().streams().groups();
    }

    /** RESP2: [[key, entries], ...]; RESP3: a map of key to entries. */
    private static void writeRead(Reply r, List<byte[]> keys, List<List<Entry>> entries) {
        if (r.resp3()) {
            r.mapHeader(keys.size());
        } else {
            r.arrayHeader(keys.size());
        }
        for (int i = 0; i < keys.size(); i++) {
            if (!r.resp3()) {
                r.arrayHeader(2);
            }
            r.bulk(keys.get(i));
            StreamCommands.writeEntries(r, entries.get(i));
        }
    }

    private static Request parse(CommandCall c, boolean grouped) {
        long timeout = -1;
        long count = 0;
        int streams = 0;
        byte[] group = null;
        byte[] consumer = null;
        boolean noAck = false;
        for (int i = 1; i < c.argCount(); i++) {
            int more = c.argCount() - i - 1;
            if (c.argIs(i, "block") && more > 0) {
                timeout = StreamArgs.blockNanos(c.arg(++i));
            } else if (c.argIs(i, "count") && more > 0) {
                count = Math.max(0, c.argLong(++i));
            } else if (c.argIs(i, "streams") && more > 0) {
                streams = i + 1;
                if ((c.argCount() - streams) % 2 != 0) {
                    throw new RedisError("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must "
                            + "be specified.");
                }
                break;
            } else if (c.argIs(i, "group") && more >= 2) {
                if (!grouped) {
                    throw new RedisError("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                }
                group = c.arg(i + 1);
                consumer = c.arg(i + 2);
                i += 2;
            } else if (c.argIs(i, "noack")) {
                if (!grouped) {
                    throw new RedisError("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                }
                noAck = true;
            } else {
                throw RedisError.syntax();
            }
        }
        if (streams == 0) {
            throw RedisError.syntax();
        }
        if (grouped && group == null) {
            throw new RedisError("ERR Missing GROUP option for XREADGROUP");
        }
        int n = (c.argCount() - streams) / 2;
        List<byte[]> keys = Arrays.asList(c.args()).subList(streams, streams + n);
        List<StreamId> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] key = keys.get(i);
            RedisType type = c.types().keys().type(key);
            if (type != null && type != RedisType.STREAM) {
                throw RedisError.wrongType();
            }
            if (grouped) {
                groups(c).requireGroup(List.of(key), group);
            }
            byte[] id = c.arg(streams + n + i);
            if (id.length == 1 && id[0] == '$') {
                if (grouped) {
                    throw new RedisError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read "
                            + "the history of this consumer by specifying a proper ID, or use the > ID to get new "
                            + "messages. The $ ID would just return an empty result set.");
                }
                ids.add(null);
            } else if (id.length == 1 && id[0] == '>') {
                if (!grouped) {
                    throw new RedisError("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                            + "<group> <consumer> option.");
                }
                ids.add(null);
            } else {
                ids.add(StreamArgs.strictId(id));
            }
        }
        return new Request(timeout, count, keys, ids, group, consumer, noAck);
    }
}
