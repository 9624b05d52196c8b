package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.BlockingKeys;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One parked blocking command: registered in {@link BlockingKeys}, ended by exactly one of being served, its
 * timeout, or its client disconnecting. Type-agnostic: the command supplies an {@link Attempt} that pops
 * what it needs from a key that became ready (list, sorted set, ...).
 *
 * <h2>Exactly one ending</h2>
 * {@link #state} goes WAITING → SERVING (a writer's thread trying the attempt) → DONE, or back to WAITING
 * when the key turned out not ready. The timeout (event loop) and the disconnect only end a WAITING
 * command, by CAS to DONE; when they find it SERVING they leave a flag ({@link #expired}, {@link #gone})
 * that the server checks after it sets WAITING again. Both sides write before they read (volatile), so one
 * of them always sees the other: a late timeout is never lost, and no command replies twice.
 */
final class BlockedClient implements BlockingKeys.Waiter {

    /** Pops for the parked command from {@code readyKey}: the reply to send, or null when the key cannot serve. */
    interface Attempt {
        Consumer<Reply> tryServe(byte[] readyKey);
    }

    private static final int WAITING = 0;
    private static final int SERVING = 1;
    private static final int DONE = 2;

    private final AtomicInteger state = new AtomicInteger(WAITING);
    private final BlockingKeys registry;
    private final Parking parking;
    private final Attempt attempt;
    private final Consumer<Reply> onTimeout;
    private volatile boolean expired;
    private volatile boolean gone;
    private volatile Runnable cancelTimer;

    private BlockedClient(BlockingKeys registry, Parking parking, Attempt attempt, Consumer<Reply> onTimeout) {
        this.registry = registry;
        this.parking = parking;
        this.attempt = attempt;
        this.onTimeout = onTimeout;
    }

    /**
     * Parks the calling command on {@code keys} until an attempt serves it or {@code timeoutNanos} pass (0:
     * forever). Caller holds the stripe locks of {@code keys} and has just found none of them ready.
     */
    static void park(CommandCall c, List<byte[]> keys, long timeoutNanos, Attempt attempt, Consumer<Reply> onTimeout) {
        Parking parking = c.connection().parking();
        BlockingKeys registry = c.keyspace().blocking();
        BlockedClient blocked = new BlockedClient(registry, parking, attempt, onTimeout);
        registry.register(blocked, keys); // first: a disconnect reported by park() must find it registered
        parking.park(blocked::disconnected);
        if (timeoutNanos > 0) {
            blocked.cancelTimer = parking.schedule(blocked::expire, timeoutNanos);
        }
    }

    /**
     * Whether this connection can park at all. Inside EXEC it cannot: the transaction holds the server
     * exclusively, so a blocking command answers at once as if its timeout had passed (Redis does the same).
     */
    static boolean canPark(CommandCall c) {
        return c.connection().parking() != null && !c.connection().transaction().executing();
    }

    @Override
    public BlockingKeys.Outcome serve(byte[] readyKey) {
        if (!state.compareAndSet(WAITING, SERVING)) {
            return BlockingKeys.Outcome.GONE;
        }
        Consumer<Reply> reply;
        try {
            reply = attempt.tryServe(readyKey);
        } catch (RuntimeException e) {
            String known = Dispatcher.errorReplyOf(e);
            String text = known != null ? known : "ERR internal error while serving a blocked client: " + e;
            reply = r -> r.error(text);
        }
        if (reply == null) {
            state.set(WAITING);
            if (gone) {
                disconnected();
            } else if (expired) {
                expire();
            }
            return BlockingKeys.Outcome.NOT_READY;
        }
        state.set(DONE);
        Runnable cancel = cancelTimer;
        if (cancel != null) {
            cancel.run();
        }
        parking.resume(reply);
        return BlockingKeys.Outcome.SERVED;
    }

    /** Event loop: the timeout passed. */
    private void expire() {
        expired = true;
        if (state.compareAndSet(WAITING, DONE)) {
            registry.remove(this);
            parking.resume(onTimeout);
        }
    }

    /** The client went away: stop waiting, reply nothing. */
    private void disconnected() {
        gone = true;
        if (state.compareAndSet(WAITING, DONE)) {
            registry.remove(this);
            Runnable cancel = cancelTimer;
            if (cancel != null) {
                cancel.run();
            }
        }
    }

    /**
     * A blocking timeout in seconds as Redis 6+ accepts it (a non-negative decimal, fractions allowed), in
     * nanoseconds; 0 means forever.
     */
    static long timeoutNanos(byte[] arg) {
        double seconds;
        try {
            seconds = Args.parseDouble(arg);
        } catch (RedisError e) {
            throw new RedisError("ERR timeout is not a float or out of range");
        }
        if (seconds < 0) {
            throw new RedisError("ERR timeout is negative");
        }
        if (Double.isInfinite(seconds) || seconds * 1e9 >= Long.MAX_VALUE) {
            throw new RedisError("ERR timeout is out of range");
        }
        long nanos = (long) (seconds * 1e9);
        return seconds > 0 && nanos == 0 ? 1 : nanos;
    }
}
