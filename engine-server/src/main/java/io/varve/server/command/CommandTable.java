package io.varve.server.command;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Every command the server knows, by lower-case name. Immutable once built. */
public final class CommandTable {

    private final Map<String, CommandSpec> byName;

    /** Lower- and upper-case spellings of every name, as clients send them. */
    private final Map<NameKey, CommandSpec> byExactName = new java.util.HashMap<>();

    private CommandTable(Map<String, CommandSpec> byName) {
        this.byName = Collections.unmodifiableMap(byName);
        for (CommandSpec spec : byName.values()) {
            byExactName.put(new NameKey(spec.name().getBytes(StandardCharsets.US_ASCII)), spec);
            byExactName.put(new NameKey(spec.name().toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII)), spec);
        }
    }

    private static final class Standard {
        static final CommandTable TABLE = build();
    }

    /** The full command set of the server (built once; the table is immutable). */
    public static CommandTable standard() {
        return Standard.TABLE;
    }

    private static CommandTable build() {
        Builder b = new Builder();
        ConnectionCommands.register(b);
        ServerCommands.register(b);
        StringCommands.register(b);
        KeyCommands.register(b);
        HashCommands.register(b);
        ListCommands.register(b);
        BlockingCommands.register(b);
        SetCommands.register(b);
        TransactionCommands.register(b);
        PubSubCommands.register(b);
        DatabaseCommands.register(b);
        SlowLogCommand.register(b);
        ResetCommand.register(b);
        ZSetCommands.register(b);
        ZRangeCommands.register(b);
        ZSetAlgebra.register(b);
        ZSetSampling.register(b);
        ZSetBlockingCommands.register(b);
        BitCommands.register(b);
        ObjectCommands.register(b);
        ClusterCommands.register(b);
        return b.build();
    }

    /** Finds a command by its name as sent (any case), without allocating for the common upper/lower forms. */
    public CommandSpec lookup(byte[] name) {
        if (name.length > 32) {
            return null;
        }
        CommandSpec spec = byExactName.get(new NameKey(name));
        if (spec != null) {
            return spec;
        }
        return byName.get(new String(name, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
    }

    /** A byte[] with value equality, for looking names up without building a String. */
    private record NameKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof NameKey k && java.util.Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    public CommandSpec lookup(String name) {
        return byName.get(name.toLowerCase(Locale.ROOT));
    }

    public Collection<CommandSpec> all() {
        return byName.values();
    }

    public int size() {
        return byName.size();
    }

    /** Collects specs; each command group registers its commands here. */
    public static final class Builder {
        private final Map<String, CommandSpec> specs = new LinkedHashMap<>();

        /**
         * @param flags Redis command flags separated by spaces ("write fast"); "no-auth" lets it run before
         *              authentication
         */
        public Builder add(String name, int arity, String flags, int firstKey, int lastKey, int step,
                           CommandHandler handler) {
            Set<String> flagSet = Set.of(flags.isBlank() ? new String[0] : flags.trim().split("\\s+"));
            CommandSpec spec = new CommandSpec(name, arity, flagSet, firstKey, lastKey, step,
                    flagSet.contains("no-auth"), handler);
            if (specs.putIfAbsent(name, spec) != null) {
                throw new IllegalStateException("command registered twice: " + name);
            }
            return this;
        }

        /** A command without key arguments. */
        public Builder add(String name, int arity, String flags, CommandHandler handler) {
            return add(name, arity, flags, 0, 0, 0, handler);
        }

        CommandTable build() {
            return new CommandTable(new LinkedHashMap<>(specs));
        }
    }
}
