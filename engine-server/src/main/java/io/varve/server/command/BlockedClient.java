package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;
import io.varve.server.store.BlockingKeys;
import io.varve.server.store.Keyspace;

import java.util.List;
import java.util.function.Consumer;

/**
 * One parked blocking command: registered in {@link BlockingKeys}, ended by exactly one of being served, its
 * timeout, its client disconnecting, or the server unblocking it. Type-agnostic: the command supplies an
 * {@link Attempt} that pops what it needs from a key that became ready (list, sorted set, ...).
 *
 * <p>Which of those endings wins is the registry's business ({@link BlockingKeys.Registration}): it never
 * runs two attempts of one command at once, and applies a timeout or disconnect that arrives during an
 * attempt only once the attempt has found nothing. This class only turns each ending into its reply and
 * cancels the timer once the wait is over.
 */
final class BlockedClient implements BlockingKeys.Waiter {

    /**
     * Pops for the parked command from {@code readyKey}: the reply to send, or null when the key cannot serve.
     * It works in its command's database through the command's {@link CommandCall#types}, which resolves the
     * connection's logical database when asked: the physical database the registry offers the key in, since
     * SWAPDB moves the waiters with the map (both in the command gate's exclusive side) and a parked
     * connection runs no SELECT.
     */
    interface Attempt {
        Consumer<Reply> tryServe(byte[] readyKey);
    }

    private final Parking parking;
    private final Attempt attempt;
    private final Consumer<Reply> onTimeout;
    /** Set before the command's locks are released, so before any serve or end could need it. */
    private volatile BlockingKeys.Registration registration;
    private volatile Runnable cancelTimer;

    private final boolean readsWithoutTaking;

    private BlockedClient(Parking parking, Attempt attempt, Consumer<Reply> onTimeout, boolean readsWithoutTaking) {
        this.parking = parking;
        this.attempt = attempt;
        this.onTimeout = onTimeout;
        this.readsWithoutTaking = readsWithoutTaking;
    }

    @Override
    public boolean keyMayServeOthers() {
        return readsWithoutTaking;
    }

    /**
     * Parks the calling command on {@code keys} of its database until an attempt serves it or
     * {@code timeoutNanos} pass (0: forever). Caller holds the stripe locks of {@code keys} and has just
     * found none of them ready.
     */
    static void park(CommandCall c, List<byte[]> keys, long timeoutNanos, Attempt attempt, Consumer<Reply> onTimeout) {
        park(c, keys, timeoutNanos, attempt, onTimeout, false);
    }

    /**
     * {@link #park} for a command that, when a key cannot serve it, leaves the key to the waiters behind it
     * ({@code readsWithoutTaking}: stream readers, see {@link BlockingKeys.Waiter#keyMayServeOthers}).
     */
    static void park(CommandCall c, List<byte[]> keys, long timeoutNanos, Attempt attempt, Consumer<Reply> onTimeout,
                     boolean readsWithoutTaking) {
        Parking parking = c.connection().parking();
        BlockedClient blocked = new BlockedClient(parking, attempt, onTimeout, readsWithoutTaking);
        // Registered first: a disconnect reported by park() must find it registered.
        // CLIENT UNBLOCK finds the command through its connection before the registry shows it waiting, and
        // reads the registration under this monitor, so it never sees a waiting command without one.
        c.connection().blocked(blocked);
        synchronized (blocked) {
            Keyspace keyspace = c.keyspace();
            blocked.registration = keyspace.blocking().register(keyspace.database().physical(), blocked, keys);
        }
        parking.park(blocked::disconnected);
        if (timeoutNanos > 0) {
            blocked.cancelTimer = parking.schedule(blocked::expire, timeoutNanos);
        }
        String refused = c.server().routing().refusesWaiting();
        if (refused != null) {
            blocked.registration.end(() -> blocked.unblocked(refused));
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
    public boolean tryServe(int database, byte[] readyKey) {
        Consumer<Reply> reply;
        try {
            reply = attempt.tryServe(readyKey);
        } catch (RuntimeException e) {
            String known = Dispatcher.errorReplyOf(e);
            String text = known != null ? known : "ERR internal error while serving a blocked client: " + e;
            reply = r -> r.error(text);
        }
        if (reply == null) {
            return false;
        }
        finish(reply);
        return true;
    }

    @Override
    public void unblocked(String error) {
        finish(r -> r.error(error));
    }

    /**
     * CLIENT UNBLOCK: ends the wait as its timeout would, or with Redis's UNBLOCKED error; returns whether the
     * command was still waiting (a serve under way wins if it finds something).
     */
    boolean unblock(boolean withError) {
        BlockingKeys.Registration registration;
        synchronized (this) {
            registration = this.registration;
        }
        if (registration == null || !registration.waiting()) {
            return false;
        }
        if (withError) {
            registration.end(() -> unblocked("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
        } else {
            registration.end(() -> {
                cancelTimer();
                parking.resume(onTimeout);
            });
        }
        return true;
    }

    /** Event loop: the timeout passed. */
    private void expire() {
        registration.end(() -> parking.resume(onTimeout));
    }

    /** The client went away: stop waiting, reply nothing. */
    private void disconnected() {
        registration.end(this::cancelTimer);
    }

    private void finish(Consumer<Reply> reply) {
        cancelTimer();
        parking.resume(reply);
    }

    private void cancelTimer() {
        Runnable cancel = cancelTimer;
        if (cancel != null) {
            cancel.run();
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
