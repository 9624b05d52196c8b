package io.varve.server.command;

import io.varve.server.resp.Reply;

import java.util.function.Consumer;

/**
 * How a command that cannot answer yet (a blocking pop with nothing to pop) gives its reply later without
 * holding a thread. The network session implements it; a connection without one (in-process use) cannot
 * park, and blocking commands there answer at once as they do inside MULTI in Redis.
 */
public interface Parking {

    /**
     * The command running now will reply later: the connection takes no further request until
     * {@link #resume}. Called on the command's thread before the handler returns. {@code onDisconnect} runs
     * once, on any thread and without blocking, if the client goes away first.
     */
    void park(Runnable onDisconnect);

    /** Writes the parked command's reply and lets the connection go on. Any thread; never blocks; once per park. */
    void resume(Consumer<Reply> reply);

    /**
     * The command about to run will first wait out a client pause: other connections' commands that keep
     * their order behind it stop waiting for it (see the server's arrival order). Default: nothing keeps order.
     */
    default void heldByPause() {
    }

    /** Runs {@code task} on the connection's event loop after {@code delayNanos}; the result cancels it. */
    Runnable schedule(Runnable task, long delayNanos);
}
