package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * COMMAND and its subcommands (COUNT, INFO, LIST, GETKEYS, GETKEYSANDFLAGS, DOCS, HELP), served from the
 * {@link CommandTable} in Redis 7's reply shapes, so cluster clients and client libraries read the same key
 * positions and flags the server itself uses.
 *
 * <p>What the table does not declare is derived: ACL categories from the flags and the command's group, the
 * {@code nondeterministic_output} tip from {@link CommandFlag#RANDOM}, and the access flags of each key spec
 * from the command's flags (a write command's keys {@code RW}, a read's {@code RO}). COMMAND DOCS gives each
 * command's group and subcommands; Varve keeps no summaries or argument lists.
 */
final class CommandIntrospection {

    /** Redis's ACL categories in the order it reports them. */
    private static final List<String> CATEGORY_ORDER = AclCategories.ALL;

    /** The ACL category of each COMMAND DOCS group that has one. */
    private static final Map<String, String> GROUP_CATEGORY = Map.ofEntries(Map.entry("generic", "keyspace"),
            Map.entry("string", "string"), Map.entry("list", "list"), Map.entry("set", "set"),
            Map.entry("sorted-set", "sortedset"), Map.entry("hash", "hash"), Map.entry("bitmap", "bitmap"),
            Map.entry("pubsub", "pubsub"), Map.entry("connection", "connection"),
            Map.entry("transactions", "transaction"), Map.entry("stream", "stream"),
            Map.entry("scripting", "scripting"), Map.entry("hyperloglog", "hyperloglog"), Map.entry("geo", "geo"));

    private static final String[] HELP = {
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)", "    Return details about all Redis commands.",
        "COUNT", "    Return the total number of commands in this Redis server.",
        "LIST", "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all commands are returned.",
        "GETKEYS <full-command>", "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full Redis command.",
        "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
        "    Return a list of all commands in this Redis server.",
        "HELP", "    Print this help."};

    private CommandIntrospection() {
    }

    static void register(CommandTable.Builder b) {
        b.add("command", -1, "loading stale", CommandIntrospection::command);
        b.subcommand("command", "count", 2, "loading stale");
        b.subcommand("command", "list", -2, "loading stale");
        b.subcommand("command", "info", -2, "loading stale");
        b.subcommand("command", "docs", -2, "loading stale");
        b.subcommand("command", "getkeys", -4, "loading stale");
        b.subcommand("command", "getkeysandflags", -4, "loading stale");
        b.subcommand("command", "help", 2, "loading stale");
    }

    private static void command(CommandCall c) {
        CommandTable table = CommandTable.standard();
        Reply r = c.reply();
        if (c.argCount() == 1) {
            r.arrayHeader(table.size());
            table.all().forEach(spec -> describe(r, spec));
            return;
        }
        switch (c.argText(1).toLowerCase(Locale.ROOT)) {
            case "count" -> r.integer(table.size());
            case "list" -> list(c, table);
            case "info" -> info(c, table);
            case "docs" -> docs(c, table);
            case "getkeys" -> getKeys(c, table, false);
            case "getkeysandflags" -> getKeys(c, table, true);
            case "help" -> {
                r.arrayHeader(HELP.length);
                for (String line : HELP) {
                    r.simple(line);
                }
            }
            default -> throw new RedisError(Dispatcher.unknownSubcommand(table.lookup("command"), c.args()));
        }
    }

    private static void info(CommandCall c, CommandTable table) {
        Reply r = c.reply();
        if (c.argCount() == 2) {
            r.arrayHeader(table.size());
            table.all().forEach(spec -> describe(r, spec));
            return;
        }
        r.arrayHeader(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) {
            CommandSpec spec = table.lookupFullName(c.argText(i));
            if (spec == null) {
                r.nullArray();
            } else {
                describe(r, spec);
            }
        }
    }

    /** One entry of COMMAND INFO, in Redis 7's ten-field shape. */
    private static void describe(Reply r, CommandSpec spec) {
        r.arrayHeader(10);
        r.bulk(spec.name());
        r.integer(spec.arity());
        List<CommandFlag> shown = spec.flags().stream().filter(f -> !f.internal()).toList();
        r.setHeader(shown.size());
        for (CommandFlag flag : shown) {
            r.simple(flag.wireName());
        }
        r.integer(spec.firstKey());
        r.integer(spec.lastKey());
        r.integer(spec.keyStep());
        List<String> categories = categories(spec);
        r.setHeader(categories.size());
        for (String category : categories) {
            r.simple("@" + category);
        }
        if (spec.has(CommandFlag.RANDOM)) {
            r.arrayHeader(1);
            r.bulk("nondeterministic_output");
        } else {
            r.arrayHeader(0);
        }
        r.arrayHeader(spec.keySpecs().size());
        for (KeySpec keys : spec.keySpecs()) {
            describeKeySpec(r, spec, keys);
        }
        r.arrayHeader(spec.subcommands().size());
        for (CommandSpec sub : spec.subcommands().values()) {
            describe(r, sub);
        }
    }

    /** ACL categories as Redis derives most of them: from the flags, plus the category of the command's group. */
    static List<String> categories(CommandSpec spec) {
        List<String> found = new ArrayList<>();
        if (!spec.subcommands().isEmpty()) {
            return List.of("slow"); // a container runs nothing itself
        }
        String group = GROUP_CATEGORY.get(spec.group());
        for (String category : CATEGORY_ORDER) {
            boolean has = switch (category) {
                case "read" -> spec.has(CommandFlag.READONLY);
                case "write" -> spec.has(CommandFlag.WRITE);
                case "admin", "dangerous" -> spec.has(CommandFlag.ADMIN);
                case "pubsub" -> spec.has(CommandFlag.PUBSUB) || "pubsub".equals(group);
                case "fast" -> spec.has(CommandFlag.FAST);
                case "slow" -> !spec.has(CommandFlag.FAST);
                case "blocking" -> spec.has(CommandFlag.BLOCKING);
                default -> category.equals(group);
            };
            if (has) {
                found.add(category);
            }
        }
        return found;
    }

    private static void describeKeySpec(Reply r, CommandSpec spec, KeySpec keys) {
        r.mapHeader(3);
        r.bulk("flags");
        List<String> flags = keyFlags(spec);
        r.setHeader(flags.size());
        flags.forEach(r::simple);
        r.bulk("begin_search");
        r.mapHeader(2);
        r.bulk("type");
        if (keys.find() instanceof KeySpec.StoreOption) {
            unknownSearch(r);
            return;
        }
        if (keys.keyword() != null) {
            r.bulk("keyword");
            r.bulk("spec");
            r.mapHeader(2);
            r.bulk("keyword");
            r.bulk(keys.keyword());
            r.bulk("startfrom");
            r.integer(keys.beginIndex());
        } else {
            r.bulk("index");
            r.bulk("spec");
            r.mapHeader(1);
            r.bulk("index");
            r.integer(keys.beginIndex());
        }
        r.bulk("find_keys");
        r.mapHeader(2);
        r.bulk("type");
        switch (keys.find()) {
            case KeySpec.Range range -> {
                r.bulk("range");
                r.bulk("spec");
                r.mapHeader(3);
                r.bulk("lastkey");
                r.integer(range.lastKey());
                r.bulk("keystep");
                r.integer(range.step());
                r.bulk("limit");
                r.integer(range.limit());
            }
            case KeySpec.StoreOption unreachable -> throw new IllegalStateException("described above");
            case KeySpec.KeyCount count -> {
                r.bulk("keynum");
                r.bulk("spec");
                r.mapHeader(3);
                r.bulk("keynumidx");
                r.integer(count.countOffset());
                r.bulk("firstkey");
                r.integer(count.firstKeyOffset());
                r.bulk("keystep");
                r.integer(count.step());
            }
        }
    }

    /** Ends a spec Redis cannot describe (SORT's STORE): its begin_search and find_keys are {@code unknown}. */
    private static void unknownSearch(Reply r) {
        r.bulk("unknown");
        r.bulk("spec");
        r.mapHeader(0);
        r.bulk("find_keys");
        r.mapHeader(2);
        r.bulk("type");
        r.bulk("unknown");
        r.bulk("spec");
        r.mapHeader(0);
    }

    /** The access flags of a command's keys, from its own flags (see the class comment). */
    private static List<String> keyFlags(CommandSpec spec) {
        if (spec.has(CommandFlag.PUBSUB)) {
            return List.of("not_key");
        }
        if (spec.has(CommandFlag.WRITE)) {
            return List.of("RW", "access", "update");
        }
        if (spec.has(CommandFlag.READONLY)) {
            return List.of("RO", "access");
        }
        return List.of("not_key");
    }

    /** COMMAND GETKEYS / GETKEYSANDFLAGS: the keys of the command given as arguments, with Redis's error words. */
    private static void getKeys(CommandCall c, CommandTable table, boolean withFlags) {
        byte[][] command = new byte[c.argCount() - 2][];
        System.arraycopy(c.args(), 2, command, 0, command.length);
        CommandSpec spec = table.lookup(command[0]);
        if (spec != null && !spec.subcommands().isEmpty() && command.length > 1) {
            spec = spec.subcommand(command);
        }
        if (spec == null) {
            throw new RedisError("ERR Invalid command specified");
        }
        if (spec.keySpecs().isEmpty() || spec.has(CommandFlag.PUBSUB)) { // shard channels route like keys, but are none
            throw new RedisError("ERR The command has no key arguments");
        }
        if (!spec.arityAccepts(command.length)) {
            throw new RedisError("ERR Invalid number of arguments specified for command");
        }
        List<Integer> positions;
        try {
            positions = spec.keyPositions(command);
        } catch (KeySpec.InvalidKeyArguments e) {
            positions = List.of();
        }
        if (positions.isEmpty() && !spec.has(CommandFlag.NO_MANDATORY_KEYS)) {
            throw new RedisError("ERR Invalid arguments specified for command");
        }
        Reply r = c.reply();
        r.arrayHeader(positions.size());
        List<String> flags = keyFlags(spec);
        for (int at : positions) {
            if (withFlags) {
                r.arrayHeader(2);
                r.bulk(command[at]);
                r.setHeader(flags.size());
                flags.forEach(r::simple);
            } else {
                r.bulk(command[at]);
            }
        }
    }

    /** COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN glob]: commands and subcommands. */
    private static void list(CommandCall c, CommandTable table) {
        java.util.function.Predicate<CommandSpec> filter;
        if (c.argCount() == 2) {
            filter = spec -> true;
        } else if (c.argCount() == 5 && c.argIs(2, "filterby")) {
            String value = c.argText(4);
            if (c.argIs(3, "module")) {
                filter = spec -> false; // no modules
            } else if (c.argIs(3, "aclcat")) {
                String category = value.toLowerCase(Locale.ROOT);
                filter = spec -> categories(spec).contains(category);
            } else if (c.argIs(3, "pattern")) {
                Glob glob = new Glob(value.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
                filter = spec -> glob.matches(spec.name().getBytes(StandardCharsets.UTF_8));
            } else {
                throw RedisError.syntax();
            }
        } else {
            throw RedisError.syntax();
        }
        List<String> names = new ArrayList<>();
        for (CommandSpec spec : table.all()) {
            if (filter.test(spec)) {
                names.add(spec.name());
            }
            for (CommandSpec sub : spec.subcommands().values()) {
                if (filter.test(sub)) {
                    names.add(sub.name());
                }
            }
        }
        Reply r = c.reply();
        r.arrayHeader(names.size());
        names.forEach(r::bulk);
    }

    /** COMMAND DOCS [name ...]: a map of each known command to its group (and its subcommands' docs). */
    private static void docs(CommandCall c, CommandTable table) {
        List<CommandSpec> specs = new ArrayList<>();
        if (c.argCount() == 2) {
            specs.addAll(table.all());
        } else {
            for (int i = 2; i < c.argCount(); i++) {
                CommandSpec spec = table.lookupFullName(c.argText(i));
                if (spec != null) {
                    specs.add(spec);
                }
            }
        }
        Reply r = c.reply();
        r.mapHeader(specs.size());
        for (CommandSpec spec : specs) {
            r.bulk(spec.name());
            document(r, spec);
        }
    }

    private static void document(Reply r, CommandSpec spec) {
        boolean container = !spec.subcommands().isEmpty();
        r.mapHeader(container ? 2 : 1);
        r.bulk("group");
        r.bulk(spec.group());
        if (container) {
            r.bulk("subcommands");
            r.mapHeader(spec.subcommands().size());
            for (CommandSpec sub : spec.subcommands().values()) {
                r.bulk(sub.name());
                document(r, sub);
            }
        }
    }
}
