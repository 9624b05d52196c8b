package io.varve.server.command;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a command is, as the server's own rules need to know it: Redis 7's command flags, which COMMAND INFO
 * reports, and a few of Varve's own that replace lists of names (which commands run while subscribed, which
 * run at once inside MULTI, which databases a write touches). Registration spells them as a space-separated
 * string ({@code "write denyoom fast"}); {@link #parse} turns that into a set and refuses a word it does not
 * know, so a typo stops the server from starting instead of silently dropping a behaviour.
 */
public enum CommandFlag {
    WRITE("write"),
    READONLY("readonly"),
    DENYOOM("denyoom"),
    MODULE("module"),
    ADMIN("admin"),
    PUBSUB("pubsub"),
    NOSCRIPT("noscript"),
    BLOCKING("blocking"),
    LOADING("loading"),
    STALE("stale"),
    SKIP_MONITOR("skip_monitor"),
    SKIP_SLOWLOG("skip_slowlog"),
    ASKING("asking"),
    FAST("fast"),
    NO_AUTH("no_auth"),
    MAY_REPLICATE("may_replicate"),
    SENTINEL("sentinel"),
    ONLY_SENTINEL("only_sentinel"),
    NO_MANDATORY_KEYS("no_mandatory_keys"),
    PROTECTED("protected"),
    MODULE_NO_CLUSTER("module_no_cluster"),
    NO_ASYNC_LOADING("no_async_loading"),
    NO_MULTI("no_multi"),
    MOVABLEKEYS("movablekeys"),
    ALLOW_BUSY("allow_busy"),
    /**
     * The reply may differ between runs on the same data (SPOP, SRANDMEMBER). Redis 6 called it a flag; Redis
     * 7 reports it as the tip {@code nondeterministic_output}, and so does COMMAND INFO here.
     */
    RANDOM("random", true),

    /** Runs on a RESP2 connection in subscriber mode (SUBSCRIBE and its kin, PING, QUIT, RESET). */
    RUNS_WHEN_SUBSCRIBED("runs_when_subscribed", true),
    /** Runs at once inside MULTI instead of being queued (MULTI, EXEC, DISCARD, WATCH, QUIT, RESET; UNWATCH is queued, as in Redis). */
    RUNS_IN_MULTI("runs_in_multi", true),
    /** Runs the commands MULTI queued (EXEC): it writes when one of them does, and CLIENT PAUSE WRITE holds it then. */
    RUNS_QUEUED("runs_queued", true),
    /** Never waits out a CLIENT PAUSE, so CLIENT UNPAUSE can always run. */
    NEVER_PAUSED("never_paused", true),
    /** A successful run invalidates every WATCH on the connection's database (FLUSHDB). */
    TOUCHES_DATABASE("touches_database", true),
    /** A successful run invalidates every WATCH on every database (FLUSHALL). */
    TOUCHES_ALL_DATABASES("touches_all_databases", true),
    /** Its key is also written in the database its last argument names (MOVE). */
    TOUCHES_KEY_IN_TARGET_DATABASE("touches_key_in_target_database", true);

    private final String wireName;
    private final boolean internal;

    CommandFlag(String wireName) {
        this(wireName, false);
    }

    CommandFlag(String wireName, boolean internal) {
        this.wireName = wireName;
        this.internal = internal;
    }

    /** The name COMMAND INFO reports. */
    public String wireName() {
        return wireName;
    }

    /** Varve's own: not one of Redis's flags, so COMMAND INFO does not list it. */
    public boolean internal() {
        return internal;
    }

    /**
     * Parses a registration's flag words. Words may use Redis's reply spelling ({@code no_auth}) or the
     * hyphenated one of Redis's own command table ({@code no-auth}).
     *
     * @throws IllegalStateException naming the command and the word, for a word that is no flag
     */
    public static Set<CommandFlag> parse(String command, String words) {
        EnumSet<CommandFlag> flags = EnumSet.noneOf(CommandFlag.class);
        if (words.isBlank()) {
            return flags;
        }
        for (String word : words.trim().split("\\s+")) {
            CommandFlag flag = byName(word);
            if (flag == null) {
                throw new IllegalStateException("command " + command + " is registered with an unknown flag: " + word);
            }
            flags.add(flag);
        }
        return flags;
    }

    private static CommandFlag byName(String word) {
        String wire = word.toLowerCase(Locale.ROOT).replace('-', '_');
        for (CommandFlag flag : values()) {
            if (flag.wireName.equals(wire)) {
                return flag;
            }
        }
        return null;
    }
}
