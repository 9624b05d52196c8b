package io.varve.stress.server;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One write a client of the server kill campaign sends, with the reply it must get and its effect on a
 * connection's model. The model is flat, one entry per string, list, hash field or counter:
 * {@code s:<key>}, {@code l:<key>} (elements joined by commas), {@code h:<key>/<field>}, {@code n:<key>}.
 * Every command but {@code OVERSIZED} changes the state (values are unique, DEL only of a key that exists), so
 * the state after a prefix of a connection's commands tells how long the prefix was. {@code OVERSIZED} asks
 * for a string past the largest value the engine can store; it must be refused with Redis's size error and
 * change nothing, and the kill that follows proves such a refusal leaves a database that reopens.
 *
 * @param keys the keys (MSET: several)
 * @param values the values, one per key (RPUSH, SET, MSET; for HSET the field's value), or empty
 * @param field the field of an HSET, else null
 * @param expected the reply the server must give, as Lettuce returns it; for {@code OVERSIZED} the error's text
 */
record ServerCommand(Kind kind, List<String> keys, List<String> values, String field, Object expected) {

    enum Kind { SET, MSET, RPUSH, HSET, INCR, DEL, OVERSIZED }

    /** An offset one past the engine's largest entry, so the string SETRANGE would build cannot be stored. */
    static final long OVERSIZED_OFFSET = 1L << 28;

    /** Redis's words for a string that would exceed the largest value. */
    static final String SIZE_ERROR = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    /** Whether the command must be answered with the error {@link #expected()}. */
    boolean expectsError() {
        return kind == Kind.OVERSIZED;
    }

    RedisFuture<?> send(RedisAsyncCommands<String, String> redis) {
        return switch (kind) {
            case SET -> redis.set(keys.getFirst(), values.getFirst());
            case MSET -> {
                Map<String, String> pairs = new LinkedHashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                    pairs.put(keys.get(i), values.get(i));
                }
                yield redis.mset(pairs);
            }
            case RPUSH -> redis.rpush(keys.getFirst(), values.getFirst());
            case HSET -> redis.hset(keys.getFirst(), field, values.getFirst());
            case INCR -> redis.incr(keys.getFirst());
            case DEL -> redis.del(keys.getFirst());
            case OVERSIZED -> redis.setrange(keys.getFirst(), OVERSIZED_OFFSET, "x");
        };
    }

    /** Applies the command to a flat model. */
    void applyTo(Map<String, String> state) {
        String key = keys.getFirst();
        switch (kind) {
            case SET -> state.put("s:" + key, values.getFirst());
            case MSET -> {
                for (int i = 0; i < keys.size(); i++) {
                    state.put("s:" + keys.get(i), values.get(i));
                }
            }
            case RPUSH -> state.merge("l:" + key, values.getFirst(), (old, v) -> old + "," + v);
            case HSET -> state.put("h:" + key + "/" + field, values.getFirst());
            case INCR -> state.merge("n:" + key, "1", (old, one) -> Long.toString(Long.parseLong(old) + 1));
            case DEL -> {
                state.remove("s:" + key);
                state.remove("l:" + key);
                state.remove("n:" + key);
                state.keySet().removeIf(k -> k.startsWith("h:" + key + "/"));
            }
            case OVERSIZED -> {
            }
        }
    }

    @Override
    public String toString() {
        return kind + " " + keys + (field == null ? "" : " " + field) + " " + values;
    }
}
