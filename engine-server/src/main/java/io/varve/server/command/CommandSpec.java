package io.varve.server.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A command's name and shape as Redis's COMMAND reply describes it: arity (positive = exactly that many
 * arguments including the name, negative = at least that many), flags, where its keys are, and for a
 * container command (CLIENT, OBJECT, ...) its subcommands. Every rule that depends on what a command is —
 * authentication, subscriber mode, MULTI queueing, CLIENT PAUSE, WATCH invalidation, replica routing —
 * reads it from here.
 *
 * @param name        lower case; a subcommand's is {@code container|sub}, as Redis names it
 * @param flags       with {@link CommandFlag#MOVABLEKEYS} added when a key spec is counted
 * @param keySpecs    in argument order; empty for a command without keys
 * @param group       the command's group in COMMAND DOCS ({@code string}, {@code sorted-set}, ...)
 * @param subcommands by lower-case subcommand name; empty for an ordinary command
 * @param handler     null for a subcommand: its container's handler runs it
 */
public record CommandSpec(String name, int arity, Set<CommandFlag> flags, List<KeySpec> keySpecs, String group,
                          Map<String, CommandSpec> subcommands, CommandHandler handler) {

    public boolean arityAccepts(int argCount) {
        return arity >= 0 ? argCount == arity : argCount >= -arity;
    }

    public boolean has(CommandFlag flag) {
        return flags.contains(flag);
    }

    /** Runs on a connection that has not authenticated (AUTH, HELLO, QUIT, RESET). */
    public boolean allowedBeforeAuth() {
        return flags.contains(CommandFlag.NO_AUTH);
    }

    public boolean isWrite() {
        return flags.contains(CommandFlag.WRITE);
    }

    /** The subcommand {@code args[1]} names, or null if this is no container or names none. */
    public CommandSpec subcommand(byte[][] args) {
        if (subcommands.isEmpty() || args.length < 2) {
            return null;
        }
        return subcommands.get(new String(args[1], java.nio.charset.StandardCharsets.UTF_8).toLowerCase(Locale.ROOT));
    }

    /** The legacy first key index of COMMAND's reply (0: none at a fixed position). */
    public int firstKey() {
        return KeySpec.legacyRange(keySpecs)[0];
    }

    public int lastKey() {
        return KeySpec.legacyRange(keySpecs)[1];
    }

    public int keyStep() {
        return KeySpec.legacyRange(keySpecs)[2];
    }

    /**
     * The positions of the key arguments in {@code args}, in the order the key specs give them.
     *
     * @throws KeySpec.InvalidKeyArguments when a key count is malformed or names more keys than were given
     */
    public List<Integer> keyPositions(byte[][] args) {
        List<Integer> positions = new ArrayList<>();
        for (KeySpec spec : keySpecs) {
            spec.forEachKey(args, positions::add);
        }
        return positions;
    }

    /** The first key argument, or null if there is none or the arguments do not say where it is. */
    public byte[] firstKeyIn(byte[][] args) {
        try {
            for (KeySpec spec : keySpecs) {
                int[] found = {-1};
                spec.forEachKey(args, i -> {
                    if (found[0] < 0) {
                        found[0] = i;
                    }
                });
                if (found[0] >= 0) {
                    return args[found[0]];
                }
            }
        } catch (KeySpec.InvalidKeyArguments malformed) {
            return null;
        }
        return null;
    }
}
