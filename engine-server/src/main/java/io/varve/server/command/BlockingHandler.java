package io.varve.server.command;

/**
 * A blocking command (BLPOP, BLMOVE, BZPOPMIN, ...). It runs in the command gate's shared side like any
 * command, but when it parks, its writes happen later, on the thread of the writer that serves it; so it
 * marks the watchers of what it writes itself, through the {@link Dispatcher}, when it writes — in both
 * cases inside a hold of the gate — rather than having the dispatcher mark every key it named when it
 * returns (a command that only parked has written nothing, and Redis does not mark its keys).
 */
@FunctionalInterface
interface BlockingHandler extends CommandHandler {

    void handle(CommandCall call, Dispatcher dispatcher);

    @Override
    default void handle(CommandCall call) {
        throw new IllegalStateException(call.spec().name() + " runs only through the dispatcher");
    }

    /** Marks the transactions watching {@code keys} of the blocked client's database: they were written. */
    static void touch(CommandCall call, Dispatcher dispatcher, byte[]... keys) {
        for (byte[] key : keys) {
            dispatcher.touchWritten(call.connection().database(), key);
        }
    }
}
