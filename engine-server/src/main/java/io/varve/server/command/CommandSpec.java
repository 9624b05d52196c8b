package io.varve.server.command;

import java.util.Set;

/**
 * A command's name and shape as Redis's COMMAND reply describes it: arity (positive = exactly that many
 * arguments including the name, negative = at least that many), flags, and which arguments are keys.
 *
 * @param allowedBeforeAuth whether it runs on a connection that has not authenticated (AUTH, HELLO, QUIT)
 */
public record CommandSpec(String name, int arity, Set<String> flags, int firstKey, int lastKey, int keyStep,
                          boolean allowedBeforeAuth, CommandHandler handler) {

    public boolean arityAccepts(int argCount) {
        return arity >= 0 ? argCount == arity : argCount >= -arity;
    }
}
