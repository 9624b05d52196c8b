package io.varve.server.command;

/**
 * A command that coordinates with other connections through state the {@link Dispatcher} owns (the command
 * gate, watched keys, pub/sub subscriptions) rather than only through the keyspace. The dispatcher runs it
 * outside the gate's shared side: such a command takes whatever side it needs itself (EXEC the exclusive one).
 */
@FunctionalInterface
interface CoordinatedHandler extends CommandHandler {

    void handle(CommandCall call, Dispatcher dispatcher);

    @Override
    default void handle(CommandCall call) {
        throw new IllegalStateException(call.spec().name() + " runs only through the dispatcher");
    }
}
