package io.varve.server.command;

import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;
import io.varve.base.concurrent.LockStripes;

import java.util.Arrays;
import java.util.List;

/**
 * BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH: the non-blocking command when a key has data, else the client
 * parks ({@link BlockedClient}) until a write fills one of its keys or the timeout passes. The check and the
 * registration happen under the keys' locks, which is what makes a wake-up impossible to miss (see
 * {@link io.varve.server.store.BlockingKeys}). A connection that cannot park answers at once with the
 * timeout reply, as Redis does inside MULTI.
 */
final class BlockingCommands {

    private BlockingCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("blpop", -3, "write noscript blocking", 1, -2, 1, (BlockingHandler) (c, d) -> bpop(c, d, true));
        b.add("brpop", -3, "write noscript blocking", 1, -2, 1, (BlockingHandler) (c, d) -> bpop(c, d, false));
        b.add("blmpop", -5, "write blocking", List.of(KeySpec.counted(2)), (BlockingHandler) BlockingCommands::blmpop);
        b.add("blmove", 6, "write denyoom noscript blocking", 1, 2, 1,
                (BlockingHandler) (c, d) -> bmove(c, d, ListCommands.side(c, 3), ListCommands.side(c, 4), c.arg(5)));
        b.add("brpoplpush", 4, "write denyoom noscript blocking", 1, 2, 1,
                (BlockingHandler) (c, d) -> bmove(c, d, false, true, c.arg(3)));
    }

    /** BLPOP/BRPOP key... timeout: replies [key, element]. */
    private static void bpop(CommandCall c, Dispatcher d, boolean left) {
        long timeout = BlockedClient.timeoutNanos(c.arg(c.argCount() - 1));
        List<byte[]> keys = Arrays.asList(c.args()).subList(1, c.argCount() - 1);
        ListCommands.MultiPop request = new ListCommands.MultiPop(keys, left, 1);
        park(c, d, request, timeout, (r, result) -> {
            r.arrayHeader(2);
            r.bulk(result.key());
            r.bulk(result.elements().getFirst());
        });
    }

    /** BLMPOP timeout numkeys key... LEFT|RIGHT [COUNT n]: replies [key, [elements]]. */
    private static void blmpop(CommandCall c, Dispatcher d) {
        long timeout = BlockedClient.timeoutNanos(c.arg(1));
        ListCommands.MultiPop request = ListCommands.MultiPop.parse(c, 2);
        park(c, d, request, timeout, (r, result) -> result.write(r));
    }

    private interface ResultWriter {
        void write(Reply reply, ListCommands.MultiPop.Result result);
    }

    private static void park(CommandCall c, Dispatcher d, ListCommands.MultiPop request, long timeout,
                             ResultWriter writer) {
        Keyspace ks = c.keyspace();
        List<byte[]> keys = request.keys();
        try (LockStripes.Held held = ks.lockAll(keys.toArray(new byte[0][]))) {
            ListCommands.MultiPop.Result result = request.popFirstNonEmpty(c.types().lists(), true);
            if (result != null) {
                BlockingHandler.touch(c, d, result.key());
                writer.write(c.reply(), result);
                return;
            }
            if (!BlockedClient.canPark(c)) {
                c.reply().nullArray();
                return;
            }
            BlockedClient.park(c, keys, timeout, readyKey -> {
                ListCommands.MultiPop.Result served;
                try (LockStripes.Held ready = ks.lock(readyKey)) {
                    served = request.popLocked(c.types().lists(), readyKey, false);
                }
                if (served == null) {
                    return null;
                }
                BlockingHandler.touch(c, d, readyKey);
                return r -> writer.write(r, served);
            }, Reply::nullArray);
        }
    }

    /** BLMOVE / BRPOPLPUSH: replies the moved element, or nil on timeout. */
    private static void bmove(CommandCall c, Dispatcher d, boolean fromLeft, boolean toLeft, byte[] timeoutArg) {
        long timeout = BlockedClient.timeoutNanos(timeoutArg);
        Keyspace ks = c.keyspace();
        byte[] source = c.arg(1);
        byte[] destination = c.arg(2);
        byte[] moved;
        try (LockStripes.Held held = ks.lockAll(source, destination)) {
            moved = ListCommands.moveLocked(c.types().lists(), source, destination, fromLeft, toLeft, true);
            if (moved == null) {
                if (!BlockedClient.canPark(c)) {
                    c.reply().nil();
                    return;
                }
                BlockedClient.park(c, List.of(source), timeout, readyKey -> {
                    byte[] element = ListCommands.moveLocked(c.types().lists(), source, destination, fromLeft, toLeft, false);
                    if (element == null) {
                        return null;
                    }
                    BlockingHandler.touch(c, d, source, destination);
                    ks.blocking().signal(destination);
                    return r -> r.bulk(element);
                }, Reply::nil);
                return;
            }
        }
        BlockingHandler.touch(c, d, source, destination);
        ks.blocking().signal(destination);
        c.reply().bulk(moved);
    }
}
