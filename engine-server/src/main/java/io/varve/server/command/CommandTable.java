package io.varve.server.command;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
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
        b.group("connection", ConnectionCommands::register);
        b.group("server", ServerCommands::register);
        b.group("server", CommandIntrospection::register);
        b.group("string", StringCommands::register);
        b.group("generic", KeyCommands::register);
        b.group("hash", HashCommands::register);
        b.group("list", ListCommands::register);
        b.group("list", BlockingCommands::register);
        b.group("set", SetCommands::register);
        b.group("transactions", TransactionCommands::register);
        b.group("pubsub", PubSubCommands::register);
        b.group("generic", DatabaseCommands::register);
        b.group("server", SlowLogCommand::register);
        b.group("connection", ResetCommand::register);
        b.group("sorted-set", ZSetCommands::register);
        b.group("sorted-set", ZRangeCommands::register);
        b.group("sorted-set", ZSetAlgebra::register);
        b.group("sorted-set", ZSetSampling::register);
        b.group("sorted-set", ZSetBlockingCommands::register);
        b.group("bitmap", BitCommands::register);
        b.group("generic", ObjectCommands::register);
        b.group("cluster", ClusterCommands::register);
        b.group("hyperloglog", HyperLogLogCommands::register);
        b.group("generic", SortCommand::register);
        b.group("geo", GeoCommands::register);
        b.group("scripting", ScriptCommands::register);
        b.group("scripting", FunctionCommands::register);
        b.group("server", MemoryCommands::register);
        b.group("generic", DumpCommands::register);
        b.group("server", LatencyCommands::register);
        b.group("server", MonitorCommand::register);
        b.group("stream", StreamCommands::register);
        b.group("stream", StreamReadCommands::register);
        b.group("stream", StreamGroupCommands::register);
        b.group("stream", StreamInfoCommand::register);
        b.group("server", VarveCommands::register);
        b.group("connection", TrackingCommands::register);
        b.group("server", AclCommands::register);
        b.group("server", RoleCommands::register);
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

    /** A command by name, or a subcommand by its full name ({@code object|encoding}); null if there is none. */
    public CommandSpec lookupFullName(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) {
            return lookup(name);
        }
        CommandSpec container = lookup(name.substring(0, bar));
        return container == null ? null : container.subcommands().get(name.substring(bar + 1).toLowerCase(Locale.ROOT));
    }

    public Collection<CommandSpec> all() {
        return byName.values();
    }

    public int size() {
        return byName.size();
    }

    /**
     * Collects specs; each command group registers its commands here. Flags are parsed and checked as they
     * are added: a word that is no {@link CommandFlag} makes the table refuse to build.
     */
    public static final class Builder {
        /** Where a registered command sits in Redis's groups when its registering class holds another group's. */
        private static final Map<String, String> GROUP_EXCEPTIONS = Map.of("lcs", "string", "select", "connection", "swapdb", "server");

        private final Map<String, CommandSpec> specs = new LinkedHashMap<>();
        private final Map<String, Map<String, CommandSpec>> subcommands = new LinkedHashMap<>();
        private String group = "generic";

        /** Registers what {@code registration} adds as commands of {@code group} (COMMAND DOCS, ACL categories). */
        Builder group(String group, java.util.function.Consumer<Builder> registration) {
            String was = this.group;
            this.group = group;
            try {
                registration.accept(this);
            } finally {
                this.group = was;
            }
            return this;
        }

        /**
         * @param flags {@link CommandFlag} words separated by spaces ("write denyoom fast")
         * @param firstKey the first key argument, 0 for none; with {@code lastKey} (negative: from the end) and
         *                 {@code step}, Redis's legacy key range
         * @throws IllegalStateException for an unknown flag or a name registered twice
         */
        public Builder add(String name, int arity, String flags, int firstKey, int lastKey, int step,
                           CommandHandler handler) {
            return add(name, arity, flags,
                    firstKey <= 0 ? List.of() : List.of(KeySpec.legacy(firstKey, lastKey, step)), handler);
        }

        /** A command without key arguments. */
        public Builder add(String name, int arity, String flags, CommandHandler handler) {
            return add(name, arity, flags, List.of(), handler);
        }

        /** A command whose keys {@code keySpecs} find (counted keys, several groups of keys). */
        public Builder add(String name, int arity, String flags, List<KeySpec> keySpecs, CommandHandler handler) {
            CommandSpec spec = new CommandSpec(name, arity, flagSet(name, flags, keySpecs), List.copyOf(keySpecs),
                    GROUP_EXCEPTIONS.getOrDefault(name, group), Map.of(), handler);
            if (specs.putIfAbsent(name, spec) != null) {
                throw new IllegalStateException("command registered twice: " + name);
            }
            return this;
        }

        /**
         * A subcommand of {@code container} (registered before or after it): the dispatcher checks its arity
         * and applies its flags, and runs the container's handler.
         */
        public Builder subcommand(String container, String sub, int arity, String flags, int firstKey, int lastKey,
                                  int step) {
            String name = container + "|" + sub;
            List<KeySpec> keys = firstKey <= 0 ? List.of() : List.of(KeySpec.legacy(firstKey, lastKey, step));
            CommandSpec spec = new CommandSpec(name, arity, flagSet(name, flags, keys), keys,
                    GROUP_EXCEPTIONS.getOrDefault(container, group), Map.of(), null);
            if (subcommands.computeIfAbsent(container, c -> new LinkedHashMap<>()).putIfAbsent(sub, spec) != null) {
                throw new IllegalStateException("command registered twice: " + name);
            }
            return this;
        }

        /** A subcommand without key arguments. */
        public Builder subcommand(String container, String sub, int arity, String flags) {
            return subcommand(container, sub, arity, flags, 0, 0, 0);
        }

        private static Set<CommandFlag> flagSet(String name, String words, List<KeySpec> keySpecs) {
            Set<CommandFlag> flags = CommandFlag.parse(name, words);
            if (keySpecs.stream().anyMatch(KeySpec::movable)) {
                flags.add(CommandFlag.MOVABLEKEYS);
            }
            return Collections.unmodifiableSet(flags);
        }

        CommandTable build() {
            Map<String, CommandSpec> all = new LinkedHashMap<>(specs);
            subcommands.forEach((container, subs) -> {
                CommandSpec c = all.get(container);
                if (c == null) {
                    throw new IllegalStateException("subcommands of an unregistered command: " + container);
                }
                all.put(container, new CommandSpec(c.name(), c.arity(), c.flags(), c.keySpecs(), c.group(),
                        Collections.unmodifiableMap(new LinkedHashMap<>(subs)), c.handler()));
            });
            return new CommandTable(all);
        }
    }
}
