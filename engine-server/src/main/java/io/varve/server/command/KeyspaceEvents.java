package io.varve.server.command;

import io.varve.server.pubsub.KeyspaceNotifier;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.varve.server.pubsub.KeyspaceNotifier.GENERIC;
import static io.varve.server.pubsub.KeyspaceNotifier.HASH;
import static io.varve.server.pubsub.KeyspaceNotifier.LIST;
import static io.varve.server.pubsub.KeyspaceNotifier.NEW;
import static io.varve.server.pubsub.KeyspaceNotifier.SET;
import static io.varve.server.pubsub.KeyspaceNotifier.STREAM;
import static io.varve.server.pubsub.KeyspaceNotifier.STRING;
import static io.varve.server.pubsub.KeyspaceNotifier.ZSET;

/**
 * Which keyspace events each write command emits, in one table, and the one place that emits them: when
 * notifications are on, the dispatcher runs a write command through {@link #run}, which notes which of the
 * command's keys (as its key specs find them) exist, runs it while the keyspace counts its commits, and —
 * only if it committed something — publishes: {@code new} for keys it created, the command's events (Redis's
 * names: {@code set}, {@code lpush}, {@code hset}, {@code rename_from}/{@code rename_to}, ...), and
 * {@code del} for keys it removed (a DEL, or a pop that emptied a list). A command that changed nothing
 * (SET NX on an existing key, DEL of absent keys) emits nothing.
 */
final class KeyspaceEvents {

    /** The events of one run: given the arguments, what to publish on which key argument. */
    @FunctionalInterface
    private interface Rule {
        void events(byte[][] args, List<Integer> keys, Emitter out);
    }

    private interface Emitter {
        void emit(int type, String event, int argument);
    }

    private static final Map<String, Rule> RULES = new HashMap<>();

    /** Commands whose source key goes without a "del": the key moved, and the command's own events say so. */
    private static final java.util.Set<String> MOVES_KEYS = java.util.Set.of("rename", "renamenx", "move");

    private static void on(int type, String event, String... commands) {
        for (String command : commands) {
            RULES.put(command, (args, keys, out) -> keys.forEach(k -> out.emit(type, event, k)));
        }
    }

    /** The event on the first key only (a STORE's destination, the key a pop or a push names first). */
    private static void onFirst(int type, String event, String... commands) {
        for (String command : commands) {
            RULES.put(command, (args, keys, out) -> out.emit(type, event, keys.get(0)));
        }
    }

    static {
        on(STRING, "set", "setnx", "getset", "mset", "msetnx");
        RULES.put("set", (args, keys, out) -> {
            out.emit(STRING, "set", 1);
            for (int i = 3; i < args.length; i++) {
                if (Args.isKeyword(args[i], "ex") || Args.isKeyword(args[i], "px") || Args.isKeyword(args[i], "exat")
                        || Args.isKeyword(args[i], "pxat")) {
                    out.emit(GENERIC, "expire", 1);
                }
            }
        });
        RULES.put("setex", (args, keys, out) -> {
            out.emit(STRING, "set", 1);
            out.emit(GENERIC, "expire", 1);
        });
        RULES.put("psetex", RULES.get("setex"));
        on(STRING, "incrby", "incr", "decr", "incrby", "decrby");
        on(STRING, "incrbyfloat", "incrbyfloat");
        on(STRING, "append", "append");
        on(STRING, "setrange", "setrange");
        on(STRING, "setbit", "setbit", "bitfield");
        RULES.put("bitop", (args, keys, out) -> out.emit(STRING, "set", 2));
        on(STRING, "pfadd", "pfadd");
        onFirst(STRING, "pfadd", "pfmerge");
        RULES.put("getex", (args, keys, out) -> out.emit(GENERIC,
                args.length > 2 && Args.isKeyword(args[2], "persist") ? "persist" : "expire", 1));
        on(GENERIC, "expire", "expire", "pexpire", "expireat", "pexpireat");
        on(GENERIC, "persist", "persist");
        RULES.put("rename", (args, keys, out) -> {
            out.emit(GENERIC, "rename_from", 1);
            out.emit(GENERIC, "rename_to", 2);
        });
        RULES.put("renamenx", RULES.get("rename"));
        RULES.put("copy", (args, keys, out) -> out.emit(GENERIC, "copy_to", 2));
        RULES.put("move", (args, keys, out) -> out.emit(GENERIC, "move_from", 1));
        // DEL, UNLINK and GETDEL publish only the "del" of the keys they removed, added for every command below.
        RULES.put("del", (args, keys, out) -> { });
        RULES.put("unlink", RULES.get("del"));
        RULES.put("getdel", RULES.get("del"));

        on(LIST, "lpush", "lpush", "lpushx");
        on(LIST, "rpush", "rpush", "rpushx");
        on(LIST, "lpop", "lpop");
        on(LIST, "rpop", "rpop");
        on(LIST, "linsert", "linsert");
        on(LIST, "lset", "lset");
        on(LIST, "lrem", "lrem");
        on(LIST, "ltrim", "ltrim");
        RULES.put("rpoplpush", (args, keys, out) -> {
            out.emit(LIST, "rpop", 1);
            out.emit(LIST, "lpush", 2);
        });
        RULES.put("lmove", (args, keys, out) -> {
            out.emit(LIST, Args.isKeyword(args[3], "left") ? "lpop" : "rpop", 1);
            out.emit(LIST, Args.isKeyword(args[4], "left") ? "lpush" : "rpush", 2);
        });
        RULES.put("sort", (args, keys, out) -> {
            if (keys.size() > 1) {
                out.emit(LIST, "sortstore", keys.get(1));
            }
        });

        on(SET, "sadd", "sadd");
        on(SET, "srem", "srem");
        on(SET, "spop", "spop");
        RULES.put("smove", (args, keys, out) -> {
            out.emit(SET, "srem", 1);
            out.emit(SET, "sadd", 2);
        });
        onFirst(SET, "sinterstore", "sinterstore");
        onFirst(SET, "sunionstore", "sunionstore");
        onFirst(SET, "sdiffstore", "sdiffstore");

        on(HASH, "hset", "hset", "hmset", "hsetnx");
        on(HASH, "hdel", "hdel");
        on(HASH, "hincrby", "hincrby");
        on(HASH, "hincrbyfloat", "hincrbyfloat");

        RULES.put("zadd", (args, keys, out) -> {
            boolean incr = false;
            for (int i = 2; i < args.length && Args.tryParseLong(args[i]) == null; i++) {
                incr |= Args.isKeyword(args[i], "incr");
            }
            out.emit(ZSET, incr ? "zincr" : "zadd", 1);
        });
        on(ZSET, "zincr", "zincrby");
        on(ZSET, "zrem", "zrem");
        on(ZSET, "zremrangebyscore", "zremrangebyscore");
        on(ZSET, "zremrangebyrank", "zremrangebyrank");
        on(ZSET, "zremrangebylex", "zremrangebylex");
        on(ZSET, "zpopmin", "zpopmin");
        on(ZSET, "zpopmax", "zpopmax");
        onFirst(ZSET, "zunionstore", "zunionstore");
        onFirst(ZSET, "zinterstore", "zinterstore");
        onFirst(ZSET, "zdiffstore", "zdiffstore");
        onFirst(ZSET, "zrangestore", "zrangestore");
        on(ZSET, "zadd", "geoadd");
        onFirst(ZSET, "geosearchstore", "geosearchstore");
        RULES.put("georadius", (args, keys, out) -> {
            if (keys.size() > 1) {
                out.emit(ZSET, "georadiusstore", keys.get(1));
            }
        });
        RULES.put("georadiusbymember", RULES.get("georadius"));

        on(STREAM, "xadd", "xadd");
        on(STREAM, "xdel", "xdel");
        on(STREAM, "xtrim", "xtrim");
        on(STREAM, "xsetid", "xsetid");
        // a container: its key is the subcommand's third argument; a subcommand that changed nothing wrote nothing
        RULES.put("xgroup", (args, keys, out) -> {
            if (args.length > 2) {
                out.emit(STREAM, "xgroup-" + new String(args[1], java.nio.charset.StandardCharsets.US_ASCII)
                        .toLowerCase(java.util.Locale.ROOT), 2);
            }
        });
        // only the consumer they may create has an event (NewStreamConsumers)
        for (String command : new String[] {"xreadgroup", "xclaim", "xautoclaim"}) {
            RULES.put(command, (args, keys, out) -> { });
        }
    }

    private final KeyspaceNotifier notifier;

    KeyspaceEvents(KeyspaceNotifier notifier) {
        this.notifier = notifier;
    }

    /** Whether {@code spec} is to run through {@link #run}: notifications are on and it has events. */
    boolean observes(CommandSpec spec) {
        return notifier.enabled() && RULES.containsKey(spec.name());
    }

    /** Runs the command and publishes its events if it committed anything (see the class comment). */
    void run(CommandCall call) {
        run(call, () -> call.spec().handler().handle(call));
    }

    /** {@link #run(CommandCall)} for a command that {@code execution} runs (a blocking one's own way). */
    void run(CommandCall call, Runnable execution) {
        byte[][] args = call.args();
        List<Integer> keys;
        try {
            keys = call.spec().keyPositions(args);
        } catch (KeySpec.InvalidKeyArguments malformed) {
            execution.run();
            return;
        }
        boolean[] existed = new boolean[keys.size()];
        for (int i = 0; i < existed.length; i++) {
            existed[i] = call.types().keys().exists(args[keys.get(i)]);
        }
        NewStreamConsumers consumers = NewStreamConsumers.before(call, keys);
        if (!call.keyspace().writesDuring(execution)) {
            return;
        }
        int database = call.connection().database();
        if (consumers != null) {
            for (int key : consumers.created(call)) {
                notifier.notify(STREAM, "xgroup-createconsumer", args[key], database);
            }
        }
        List<Integer> removed = new ArrayList<>();
        for (int i = 0; i < existed.length; i++) {
            boolean exists = call.types().keys().exists(args[keys.get(i)]);
            if (!existed[i] && exists) {
                notifier.notify(NEW, "new", args[keys.get(i)], database);
            } else if (existed[i] && !exists && !removed.contains(keys.get(i))) {
                removed.add(keys.get(i));
            }
        }
        RULES.get(call.spec().name()).events(args, keys, (type, event, argument) -> {
            // An expiry already in the past deletes the key: Redis reports that as "del" alone.
            if (!(event.equals("expire") && removed.contains(argument))) {
                notifier.notify(type, event, args[argument], database);
            }
        });
        if (MOVES_KEYS.contains(call.spec().name())) {
            return;
        }
        for (int argument : removed) {
            notifier.notify(GENERIC, "del", args[argument], database);
        }
    }
}
