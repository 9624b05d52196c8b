package io.varve.server.pubsub;

/**
 * Where a subscriber's messages go: its connection, which encodes each as a push (RESP3) or array (RESP2)
 * and bounds what it holds for a client that does not read. Called from publishers' threads.
 */
@FunctionalInterface
public interface MessageSink {

    /** Sends one message, e.g. {@code ["message", channel, payload]}; never blocks. */
    void push(byte[]... parts);

    /** Sends one status line ({@code +text}), as MONITOR does; never blocks. */
    default void pushLine(String text) {
    }

    /**
     * Sends one message whose shape the flat {@link #push} cannot give (nested arrays, nulls, integers), as
     * client-side caching's invalidations; {@code writer} encodes it for the connection's protocol. Never blocks.
     */
    default void pushReply(java.util.function.Consumer<io.varve.server.resp.Reply> writer) {
    }

    /** Drops everything: for connections without a network (tests of the command layer). */
    MessageSink DISCARD = parts -> {
    };
}
