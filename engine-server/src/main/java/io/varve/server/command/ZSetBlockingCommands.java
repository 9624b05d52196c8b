package io.varve.server.command;

import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;
import io.varve.server.store.WrongTypeException;
import io.varve.server.types.Scored;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP: ZPOPMIN/ZPOPMAX/ZMPOP when one of the keys holds members, else the client
 * parks on the keys ({@link BlockedClient}) until a write that fills one of them (ZADD, ZINCRBY, a STORE,
 * COPY, RENAME) signals it, or the timeout passes. The check and the registration happen under the keys'
 * locks, so a wake-up cannot be missed.
 */
final class ZSetBlockingCommands {

    /** Pops from the first of {@code keys} that has members; null when all are empty. */
    private interface PopRequest {
        Consumer<Reply> popFirst(CommandCall c, List<byte[]> keys);
    }

    private ZSetBlockingCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("bzpopmin", -3, "write noscript blocking fast", 1, -2, 1, (BlockingHandler) (c, d) -> bzpop(c, d, false));
        b.add("bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, (BlockingHandler) (c, d) -> bzpop(c, d, true));
        b.add("bzmpop", -5, "write blocking", List.of(KeySpec.counted(2)), (BlockingHandler) ZSetBlockingCommands::bzmpop);
    }

    /** BZPOPMIN/BZPOPMAX key... timeout: replies [key, member, score]. */
    private static void bzpop(CommandCall c, Dispatcher d, boolean max) {
        long timeout = BlockedClient.timeoutNanos(c.arg(c.argCount() - 1));
        List<byte[]> keys = Arrays.asList(c.args()).subList(1, c.argCount() - 1);
        park(c, keys, timeout, (call, candidates) -> {
            for (byte[] key : candidates) {
                List<Scored> popped = ZSetCommands.popLocked(call, key, max, 1);
                if (!popped.isEmpty()) {
                    BlockingHandler.touch(call, d, key);
                    Scored s = popped.getFirst();
                    return r -> {
                        r.arrayHeader(3);
                        r.bulk(key);
                        r.bulk(s.member());
                        r.doubleValue(s.score());
                    };
                }
            }
            return null;
        });
    }

    /** BZMPOP timeout numkeys key... MIN|MAX [COUNT n]: replies [key, [[member, score], ...]]. */
    private static void bzmpop(CommandCall c, Dispatcher d) {
        long timeout = BlockedClient.timeoutNanos(c.arg(1));
        ZSetCommands.MultiPop request = ZSetCommands.MultiPop.parse(c, 2);
        park(c, request.keys(), timeout, (call, candidates) -> {
            for (byte[] key : candidates) {
                List<Scored> popped = ZSetCommands.popLocked(call, key, request.max(), request.count());
                if (!popped.isEmpty()) {
                    BlockingHandler.touch(call, d, key);
                    return r -> ZSetCommands.MultiPop.reply(r, key, popped);
                }
            }
            return null;
        });
    }

    private static void park(CommandCall c, List<byte[]> keys, long timeout, PopRequest pop) {
        Keyspace ks = c.keyspace();
        try (LockStripes.Held held = ks.lockAll(keys.toArray(new byte[0][]))) {
            Consumer<Reply> served = pop.popFirst(c, keys);
            if (served != null) {
                served.accept(c.reply());
                return;
            }
            if (!BlockedClient.canPark(c)) {
                c.reply().nullArray();
                return;
            }
            BlockedClient.park(c, keys, timeout, readyKey -> {
                try (LockStripes.Held ready = ks.lock(readyKey)) {
                    return pop.popFirst(c, List.of(readyKey));
                } catch (WrongTypeException notASortedSetNow) {
                    // As in Redis: a key that became another type keeps the client blocked, not failed.
                    return null;
                }
            }, Reply::nullArray);
        }
    }
}
