package io.varve.server.command;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random string and hash programs against a map of strings and a {@code TreeMap} per hash, with expiries, moves
 * of the clock, compactions and server restarts (the database closed and reopened from its files) anywhere in
 * the sequence. Every reply must be the model's, including Redis's errors for a command on the other type or a
 * counter that is not an integer, and after each step every key's type, time to live and contents must be the
 * model's: a restart must bring back exactly what was there, expiries included.
 */
class StringHashModelProperties implements ModelRun.Model {

    private static final List<String> KEYS = List.of("a", "b", "c");
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    private static final String HASH_NOT_INTEGER = "ERR hash value is not an integer";

    private final Map<String, String> strings = new HashMap<>();
    private final Map<String, TreeMap<String, String>> hashes = new HashMap<>();
    private final Map<String, Long> expiry = new HashMap<>();

    @Property(tries = 120)
    void stringsAndHashesBehaveLikeMapsAcrossRestarts(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        strings.clear();
        hashes.clear();
        expiry.clear();
        int restarts = ModelRun.run(program, expiry, this, slotted);
        Statistics.label("restarts").collect(Math.min(restarts, 3));
        // About half the programs restart at random; the check only guards against generation that never does.
        Statistics.label("restarts").coverage(c -> c.check(0).percentage(p -> p < 85));
    }

    @Override
    public void expire(String key) {
        strings.remove(key);
        hashes.remove(key);
    }

    @Override
    public void step(InProcessServer s, String[] op, String where) {
        assertEquals(expected(op, s.clock.get()), RespText.parse(s.call(op)), where);
    }

    @Override
    public void check(InProcessServer s, String where) {
        for (String k : KEYS) {
            checkKey(s, k, where);
        }
    }

    private void checkKey(InProcessServer s, String k, String where) {
        String type = strings.containsKey(k) ? "string" : hashes.containsKey(k) ? "hash" : "none";
        assertEquals(type, RespText.parse(s.call("TYPE", k)), where + ": type of " + k);
        Long deadline = expiry.get(k);
        long pttl = type.equals("none") ? -2 : deadline == null ? -1 : deadline - s.clock.get();
        assertEquals(pttl, RespText.parse(s.call("PTTL", k)), where + ": PTTL of " + k);
        if (type.equals("string")) {
            assertEquals(strings.get(k), RespText.parse(s.call("GET", k)), where + ": value of " + k);
        } else if (type.equals("hash")) {
            assertEquals(hashes.get(k), asMap(RespText.parse(s.call("HGETALL", k))), where + ": fields of " + k);
            assertEquals((long) hashes.get(k).size(), RespText.parse(s.call("HLEN", k)), where + ": size of " + k);
        }
    }

    private static Map<String, String> asMap(Object reply) {
        List<?> list = (List<?>) reply;
        Map<String, String> map = new TreeMap<>();
        for (int i = 0; i < list.size(); i += 2) {
            map.put((String) list.get(i), (String) list.get(i + 1));
        }
        return map;
    }

    private Object expected(String[] op, long now) {
        String k = op[1];
        boolean isString = strings.containsKey(k);
        boolean isHash = hashes.containsKey(k);
        switch (op[0]) {
            case "SET" -> {
                hashes.remove(k);
                expiry.remove(k);
                strings.put(k, op[2]);
                return "OK";
            }
            case "GET", "STRLEN", "APPEND", "INCRBY" -> {
                if (isHash) {
                    return new RespText.Error(WRONGTYPE);
                }
                String value = strings.get(k);
                return switch (op[0]) {
                    case "GET" -> value;
                    case "STRLEN" -> value == null ? 0L : (long) value.length();
                    case "APPEND" -> {
                        String appended = (value == null ? "" : value) + op[2];
                        strings.put(k, appended);
                        yield (long) appended.length();
                    }
                    default -> {
                        Long current = value == null ? Long.valueOf(0) : parseLong(value);
                        if (current == null) {
                            yield new RespText.Error(NOT_INTEGER);
                        }
                        long next = current + Long.parseLong(op[2]);
                        strings.put(k, Long.toString(next));
                        yield next;
                    }
                };
            }
            case "HSET", "HGET", "HDEL", "HINCRBY" -> {
                if (isString) {
                    return new RespText.Error(WRONGTYPE);
                }
                TreeMap<String, String> hash = hashes.get(k);
                String field = op[2];
                return switch (op[0]) {
                    case "HSET" -> {
                        boolean added = hashes.computeIfAbsent(k, x -> new TreeMap<>()).put(field, op[3]) == null;
                        yield added ? 1L : 0L;
                    }
                    case "HGET" -> hash == null ? null : hash.get(field);
                    case "HDEL" -> {
                        boolean removed = hash != null && hash.remove(field) != null;
                        if (hash != null && hash.isEmpty()) {
                            hashes.remove(k);
                            expiry.remove(k);
                        }
                        yield removed ? 1L : 0L;
                    }
                    default -> {
                        String value = hash == null ? null : hash.get(field);
                        Long current = value == null ? Long.valueOf(0) : parseLong(value);
                        if (current == null) {
                            yield new RespText.Error(HASH_NOT_INTEGER);
                        }
                        long next = current + Long.parseLong(op[3]);
                        hashes.computeIfAbsent(k, x -> new TreeMap<>()).put(field, Long.toString(next));
                        yield next;
                    }
                };
            }
            case "DEL" -> {
                expiry.remove(k);
                boolean existed = strings.remove(k) != null | hashes.remove(k) != null;
                return existed ? 1L : 0L;
            }
            case "PEXPIRE" -> {
                if (!isString && !isHash) {
                    return 0L;
                }
                expiry.put(k, now + Long.parseLong(op[2]));
                return 1L;
            }
            case "PERSIST" -> {
                return (isString || isHash) && expiry.remove(k) != null ? 1L : 0L;
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    /** An integer as Redis reads one: no sign but a leading minus, no leading zero, no spaces. */
    private static Long parseLong(String value) {
        if (!value.matches("0|-?[1-9][0-9]*")) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException outOfRange) {
            return null;
        }
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> field = Arbitraries.of("f1", "f2", "f3", "f4");
        Arbitrary<String> value = Arbitraries.of("x", "yz", "7", "-3", "42", "0");
        Arbitrary<String> delta = Arbitraries.integers().between(-5, 5).map(String::valueOf);
        Arbitrary<String> millis = Arbitraries.integers().between(1, 2000).map(String::valueOf);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(6, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v})),
                Tuple.of(2, key.map(k -> new String[] {"GET", k})),
                Tuple.of(1, key.map(k -> new String[] {"STRLEN", k})),
                Tuple.of(3, Combinators.combine(key, value).as((k, v) -> new String[] {"APPEND", k, v})),
                Tuple.of(3, Combinators.combine(key, delta).as((k, d) -> new String[] {"INCRBY", k, d})),
                Tuple.of(8, Combinators.combine(key, field, value).as((k, f, v) -> new String[] {"HSET", k, f, v})),
                Tuple.of(2, Combinators.combine(key, field).as((k, f) -> new String[] {"HGET", k, f})),
                Tuple.of(3, Combinators.combine(key, field).as((k, f) -> new String[] {"HDEL", k, f})),
                Tuple.of(3, Combinators.combine(key, field, delta)
                        .as((k, f, d) -> new String[] {"HINCRBY", k, f, d})),
                Tuple.of(2, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(2, Combinators.combine(key, millis).as((k, ms) -> new String[] {"PEXPIRE", k, ms})),
                Tuple.of(1, key.map(k -> new String[] {"PERSIST", k})),
                Tuple.of(2, millis.map(ms -> new String[] {"ADVANCE", ms})),
                Tuple.of(3, Arbitraries.just(new String[] {"RESTART"})),
                Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(5).ofMaxSize(60);
    }
}
