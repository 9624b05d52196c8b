package io.varve.server;

import io.varve.server.command.Args;
import io.varve.server.command.CommandFlag;
import io.varve.server.command.CommandSpec;
import io.varve.server.command.CommandTable;
import io.varve.server.command.KeySpec;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps Redis's order between a blocking command and what other connections send after it on its keys, and
 * between a (un)subscribe and the publishes other connections send after it.
 *
 * <h2>Why</h2>
 * Redis runs commands one at a time in the order their bytes arrive, so a client that sends {@code BLPOP k 0} on
 * one connection and then {@code LPUSH k a} on another knows the pop registered first; two BRPOPLPUSH sent
 * back to back wait in the order they were sent; {@code XREAD BLOCK 0 STREAMS s $} followed by an XADD on
 * another connection gets that entry. Varve runs each connection's commands on its own thread, so without help
 * the later command may run first: the pop finds the element and answers at once, the second BRPOPLPUSH is
 * queued ahead of the first, the XREAD's {@code $} already names the new entry and it waits forever. Likewise a
 * client whose UNSUBSCRIBE was sent before another client's PUBLISH must not get the message.
 *
 * <h2>The rule</h2>
 * When an event loop decodes a blocking command ({@link CommandFlag#BLOCKING}; a stream read only with BLOCK) that
 * its connection will run next (nothing of the connection queued or parked before it, the channel writable), it
 * {@link #announce}s it: the command gets the next number of a counter and a place in the pending list with its
 * keys. Every hand-off of requests to a connection's thread is {@link #stamp}ed with the counter's value. Before a
 * request runs, {@link #awaitEarlier} waits while a pending command of another connection with a number not above
 * the request's stamp (strictly below its own number, for an announced command) names one of its keys; the
 * announced command leaves the list once its first attempt is over ({@link #attempted}: it took what it waited for,
 * failed, or registered as a waiter), when its connection closes, or when it is about to wait out a client pause
 * (then it runs when the pause ends, like the commands it would have held up). A command without keys waits for
 * none, except one that touches whole databases (FLUSHALL, SWAPDB), which waits for all. SUBSCRIBE and its kin
 * are announced the same way with no keys, and PUBLISH and SPUBLISH wait for them (for any channel).
 *
 * <h2>Why it cannot deadlock</h2>
 * A request waits only for announced commands, and an announced command is the next thing its connection
 * runs, so it waits for nothing of its own connection; it in turn waits only for announced commands with
 * smaller numbers. Every wait goes to a smaller number, so waits form no cycle. The one way an announced
 * command may still be slow to run is outside this order (a connection whose client stopped reading its
 * replies, a machine so loaded that its thread does not run); so a wait is bounded by
 * {@link #LONGEST_WAIT_MILLIS}, after which the waiter drops the announcement and goes on: order is then as
 * without this class, never a hang.
 *
 * <h2>Cost</h2>
 * Announcing takes one look-up of the command name, only for names that start as a blocking command's do or
 * end in "subscribe";
 * stamping is one volatile read per hand-off; while nothing is pending {@link #awaitEarlier} is one volatile
 * read. The answers the event loop gives itself (GET from memory, the loop's shared SETs) are given only while
 * nothing is pending, so they never pass an announced command either.
 */
final class ArrivalOrder {

    /** How long a request waits for one announced command before it stops keeping that command's order. */
    static final long LONGEST_WAIT_MILLIS = 5000;

    /**
     * An announced command: its number, its connection, and its keys (a blocking command) or null (a
     * (un)subscribe, which publishes wait for).
     */
    static final class Announced {
        private final long number;
        private final long connectionId;
        private final byte[][] keys;
        private final Object request;
        private final CountDownLatch over = new CountDownLatch(1);

        private Announced(long number, long connectionId, byte[][] keys, Object request) {
            this.number = number;
            this.connectionId = connectionId;
            this.keys = keys;
            this.request = request;
        }

        private boolean subscription() {
            return keys == null;
        }

        /** Whether this announcement is for {@code request} (the same decoded object). */
        boolean isFor(Object request) {
            return this.request == request;
        }

        long number() {
            return number;
        }
    }

    private final CommandTable table;
    private final AtomicLong counter = new AtomicLong();
    private final ConcurrentLinkedQueue<Announced> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();

    ArrivalOrder(CommandTable table) {
        this.table = table;
    }

    /** Whether some announced command has not made its first attempt yet. */
    boolean anyPending() {
        return pendingCount.get() != 0;
    }

    /** The stamp of a hand-off made now: announced commands numbered up to it came first. */
    long stamp() {
        return counter.get();
    }

    /**
     * Event loop: announces {@code args} if it is a blocking command; the caller has checked that its
     * connection runs it next. Returns the announcement, or null for any other command.
     */
    Announced announce(long connectionId, byte[][] args, Object request) {
        if (args.length == 0 || args[0].length == 0) {
            return null;
        }
        byte first = (byte) (args[0][0] | 0x20);
        if (endsWithSubscribe(args[0])) {
            CommandSpec spec = table.lookup(args[0]);
            return spec == null || !spec.has(CommandFlag.PUBSUB) ? null : add(connectionId, null, request);
        }
        if (first != 'b' && first != 'x') { // every blocking command's name starts so
            return null;
        }
        CommandSpec spec = table.lookup(args[0]);
        if (spec == null || !spec.has(CommandFlag.BLOCKING) || !spec.arityAccepts(args.length)
                || (first == 'x' && !asksToBlock(args))) {
            return null;
        }
        byte[][] keys = keysOf(spec, args);
        if (keys == null || keys.length == 0) {
            return null;
        }
        return add(connectionId, keys, request);
    }

    private Announced add(long connectionId, byte[][] keys, Object request) {
        Announced announced = new Announced(counter.incrementAndGet(), connectionId, keys, request);
        pendingCount.incrementAndGet();
        pending.add(announced);
        return announced;
    }

    private static boolean endsWithSubscribe(byte[] name) {
        byte[] suffix = {'s', 'u', 'b', 's', 'c', 'r', 'i', 'b', 'e'};
        int at = name.length - suffix.length;
        if (at < 0) {
            return false;
        }
        for (int i = 0; i < suffix.length; i++) {
            if ((name[at + i] | 0x20) != suffix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether a stream read names BLOCK before its STREAMS: without it, it answers at once. */
    private static boolean asksToBlock(byte[][] args) {
        for (int i = 1; i < args.length; i++) {
            if (Args.isKeyword(args[i], "streams")) {
                return false;
            }
            if (Args.isKeyword(args[i], "block")) {
                return true;
            }
        }
        return false;
    }

    /** The announced command's first attempt is over (or it will never run): later requests go on. */
    void attempted(Announced announced) {
        if (pending.remove(announced)) {
            pendingCount.decrementAndGet();
        }
        announced.over.countDown();
    }

    /**
     * Waits until no pending command of another connection numbered at most {@code stamp} names a key of
     * {@code args}. Never throws; an interrupt ends the wait.
     */
    void awaitEarlier(long connectionId, long stamp, byte[][] args) {
        if (!anyPending()) {
            return;
        }
        CommandSpec spec = args.length == 0 ? null : table.lookup(args[0]);
        if (spec == null) {
            return;
        }
        boolean publishes = spec.name().equals("publish") || spec.name().equals("spublish");
        byte[][] keys = spec.has(CommandFlag.TOUCHES_ALL_DATABASES) || spec.has(CommandFlag.TOUCHES_DATABASE)
                || spec.name().equals("swapdb") ? null : keysOf(spec, args);
        if (keys != null && keys.length == 0 && !publishes) {
            return;
        }
        Announced earlier;
        while ((earlier = firstEarlier(connectionId, stamp, keys, publishes)) != null) {
            try {
                if (!earlier.over.await(LONGEST_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                    attempted(earlier); // it is held outside this order: stop keeping it
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Ends every announcement of a connection that closed. */
    void closed(long connectionId) {
        if (!anyPending()) {
            return;
        }
        for (Announced a : pending) {
            if (a.connectionId == connectionId) {
                attempted(a);
            }
        }
    }

    /** The first pending announcement a request must wait for; {@code keys} null: every key. */
    private Announced firstEarlier(long connectionId, long stamp, byte[][] keys, boolean publishes) {
        for (Announced a : pending) {
            if (a.connectionId == connectionId || a.number > stamp) {
                continue;
            }
            if (a.subscription() ? publishes : keys == null || sharesKey(a.keys, keys)) {
                return a;
            }
        }
        return null;
    }

    private static boolean sharesKey(byte[][] a, byte[][] b) {
        for (byte[] x : a) {
            for (byte[] y : b) {
                if (Arrays.equals(x, y)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The key arguments of a command (of its subcommand, if it has one); empty when the arguments are malformed. */
    private static byte[][] keysOf(CommandSpec spec, byte[][] args) {
        CommandSpec sub = spec.subcommand(args);
        CommandSpec effective = sub == null ? spec : sub;
        try {
            List<Integer> positions = effective.keyPositions(args);
            byte[][] keys = new byte[positions.size()][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = args[positions.get(i)];
            }
            return keys;
        } catch (KeySpec.InvalidKeyArguments | IndexOutOfBoundsException malformed) {
            return new byte[0][];
        }
    }
}
