package io.varve.stress.server;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * One client connection's keys (strings, lists, hashes, counters, all prefixed {@code c<id>:}) and the state
 * after every command it has sent: the next command is chosen against it, with the reply the server must give.
 */
final class ConnectionModel {
    private static final int STRINGS = 40;
    private static final int LISTS = 4;
    private static final int HASHES = 4;
    private static final int FIELDS = 10;
    private static final int COUNTERS = 4;
    private static final int LONGEST_LIST = 20;

    private final int id;
    private Map<String, String> sent;
    private long sequence;

    ConnectionModel(int id, Map<String, String> state) {
        this.id = id;
        this.sent = new HashMap<>(state);
    }

    /** Continues from {@code state} (the verified one after a restart). */
    void reset(Map<String, String> state) {
        sent = new HashMap<>(state);
    }

    ServerCommand next(Random random, long cycle) {
        String value = "c" + id + "-" + cycle + "-" + sequence++;
        int choice = random.nextInt(100);
        ServerCommand c;
        if (choice < 1) {
            c = new ServerCommand(ServerCommand.Kind.OVERSIZED, List.of(key('s', random.nextInt(STRINGS))),
                    List.of(), null, ServerCommand.SIZE_ERROR);
        } else if (choice < 35) {
            c = new ServerCommand(ServerCommand.Kind.SET, List.of(key('s', random.nextInt(STRINGS))), List.of(value),
                    null, "OK");
        } else if (choice < 45) {
            int a = random.nextInt(STRINGS);
            int b = (a + 1 + random.nextInt(STRINGS - 1)) % STRINGS;
            c = new ServerCommand(ServerCommand.Kind.MSET, List.of(key('s', a), key('s', b)),
                    List.of(value + "a", value + "b"), null, "OK");
        } else if (choice < 65) {
            String key = key('l', random.nextInt(LISTS));
            String list = sent.get("l:" + key);
            int length = list == null ? 0 : list.split(",").length;
            c = length >= LONGEST_LIST ? del(key)
                    : new ServerCommand(ServerCommand.Kind.RPUSH, List.of(key), List.of(value), null, length + 1L);
        } else if (choice < 82) {
            String key = key('h', random.nextInt(HASHES));
            String field = "f" + random.nextInt(FIELDS);
            boolean isNew = !sent.containsKey("h:" + key + "/" + field);
            c = new ServerCommand(ServerCommand.Kind.HSET, List.of(key), List.of(value), field, isNew);
        } else if (choice < 94) {
            String key = key('n', random.nextInt(COUNTERS));
            String now = sent.get("n:" + key);
            c = new ServerCommand(ServerCommand.Kind.INCR, List.of(key), List.of(), null,
                    (now == null ? 0 : Long.parseLong(now)) + 1);
        } else {
            List<String> present = new ArrayList<>();
            for (String k : sent.keySet()) {
                present.add(k.substring(2).split("/")[0]);
            }
            if (present.isEmpty()) {
                return next(random, cycle);
            }
            c = del(present.get(random.nextInt(present.size())));
        }
        c.applyTo(sent);
        return c;
    }

    private ServerCommand del(String key) {
        return new ServerCommand(ServerCommand.Kind.DEL, List.of(key), List.of(), null, 1L);
    }

    private String key(char kind, int n) {
        return "c" + id + ":" + kind + n;
    }

    /** Every key this connection may write. */
    List<String> keys() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < STRINGS; i++) {
            keys.add(key('s', i));
        }
        for (int i = 0; i < LISTS; i++) {
            keys.add(key('l', i));
        }
        for (int i = 0; i < HASHES; i++) {
            keys.add(key('h', i));
        }
        for (int i = 0; i < COUNTERS; i++) {
            keys.add(key('n', i));
        }
        return keys;
    }

    /** The server's state of this connection's keys, in the model's flat form. */
    Map<String, String> read(RedisCommands<String, String> redis) {
        Map<String, String> state = new TreeMap<>();
        for (String key : keys()) {
            char kind = key.charAt(key.indexOf(':') + 1);
            switch (kind) {
                case 's', 'n' -> {
                    String v = redis.get(key);
                    if (v != null) {
                        state.put(kind + ":" + key, v);
                    }
                }
                case 'l' -> {
                    List<String> list = redis.lrange(key, 0, -1);
                    if (!list.isEmpty()) {
                        state.put("l:" + key, String.join(",", list));
                    }
                }
                default -> redis.hgetall(key).forEach((field, v) -> state.put("h:" + key + "/" + field, v));
            }
        }
        return state;
    }
}
