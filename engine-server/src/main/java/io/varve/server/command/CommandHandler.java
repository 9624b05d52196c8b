package io.varve.server.command;

/** A command's implementation: reads {@link CommandCall#args()}, replies through {@link CommandCall#reply()}. */
@FunctionalInterface
public interface CommandHandler {
    void handle(CommandCall call);
}
