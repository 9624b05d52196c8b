package io.varve.server.command;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random list programs against an ArrayList per key: every reply must be the model's, and so must every list
 * after each step. Programs also delete and re-create keys, expire them, restart the server from its files
 * and compact, so old versions, recovery and the compaction filter are all under test.
 */
class ListModelProperties implements ModelRun.Model {

    private static final List<String> KEYS = List.of("a", "b");

    private final Map<String, List<String>> lists = new HashMap<>();
    private final Map<String, Long> expiry = new HashMap<>();

    @Property(tries = 150)
    void listsBehaveLikeArrayLists(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        lists.clear();
        expiry.clear();
        ModelRun.run(program, expiry, this, slotted);
    }

    @Override
    public void expire(String key) {
        lists.remove(key);
    }

    @Override
    public void step(InProcessServer s, String[] op, String where) {
        assertEquals(expected(op, s.clock.get()), RespText.parse(s.call(op)), where);
    }

    @Override
    public void check(InProcessServer s, String where) {
        for (String k : KEYS) {
            List<String> model = lists.getOrDefault(k, List.of());
            assertEquals(model, RespText.parse(s.call("LRANGE", k, "0", "-1")), where + ": list " + k);
            assertEquals((long) model.size(), RespText.parse(s.call("LLEN", k)), where + ": length of " + k);
        }
    }

    /** The reply the model gives to {@code op}, applying its effect. */
    private Object expected(String[] op, long now) {
        String k = op[1];
        List<String> l = lists.get(k);
        switch (op[0]) {
            case "LPUSH", "RPUSH", "LPUSHX", "RPUSHX" -> {
                if (l == null) {
                    if (op[0].endsWith("X")) {
                        return 0L;
                    }
                    l = new ArrayList<>();
                    lists.put(k, l);
                }
                for (int i = 2; i < op.length; i++) {
                    if (op[0].startsWith("L")) {
                        l.addFirst(op[i]);
                    } else {
                        l.add(op[i]);
                    }
                }
                return (long) l.size();
            }
            case "LPOP", "RPOP" -> {
                if (l == null) {
                    return null;
                }
                List<Object> popped = new ArrayList<>();
                int n = op.length == 3 ? Integer.parseInt(op[2]) : 1;
                for (int i = 0; i < n && !l.isEmpty(); i++) {
                    popped.add(op[0].equals("LPOP") ? l.removeFirst() : l.removeLast());
                }
                dropIfEmpty(k);
                return op.length == 3 ? popped : popped.getFirst();
            }
            case "LINDEX" -> {
                int size = l == null ? 0 : l.size();
                int i = Integer.parseInt(op[2]);
                i = i < 0 ? i + size : i;
                return i >= 0 && i < size ? l.get(i) : null;
            }
            case "LSET" -> {
                if (l == null) {
                    return new RespText.Error("ERR no such key");
                }
                int i = Integer.parseInt(op[2]);
                i = i < 0 ? i + l.size() : i;
                if (i < 0 || i >= l.size()) {
                    return new RespText.Error("ERR index out of range");
                }
                l.set(i, op[3]);
                return "OK";
            }
            case "LRANGE", "LTRIM" -> {
                List<String> all = l == null ? List.of() : l;
                long[] r = ListCommands.clampRange(Long.parseLong(op[2]), Long.parseLong(op[3]), all.size());
                List<String> kept = new ArrayList<>(all.subList((int) r[0], (int) r[1] + 1));
                if (op[0].equals("LRANGE")) {
                    return new ArrayList<Object>(kept);
                }
                if (l != null) {
                    l.clear();
                    l.addAll(kept);
                    dropIfEmpty(k);
                }
                return "OK";
            }
            case "LINSERT" -> {
                if (l == null) {
                    return 0L;
                }
                int pivot = l.indexOf(op[3]);
                if (pivot < 0) {
                    return -1L;
                }
                l.add(op[2].equals("BEFORE") ? pivot : pivot + 1, op[4]);
                return (long) l.size();
            }
            case "LREM" -> {
                if (l == null) {
                    return 0L;
                }
                int count = Integer.parseInt(op[2]);
                long removed = 0;
                long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
                if (count >= 0) {
                    for (int i = 0; i < l.size() && removed < limit; ) {
                        if (l.get(i).equals(op[3])) {
                            l.remove(i);
                            removed++;
                        } else {
                            i++;
                        }
                    }
                } else {
                    for (int i = l.size() - 1; i >= 0 && removed < limit; i--) {
                        if (l.get(i).equals(op[3])) {
                            l.remove(i);
                            removed++;
                        }
                    }
                }
                dropIfEmpty(k);
                return removed;
            }
            case "LPOS" -> {
                List<String> all = l == null ? List.of() : l;
                int rank = Integer.parseInt(op[4]);
                int count = Integer.parseInt(op[6]);
                int maxLen = Integer.parseInt(op[8]);
                List<Object> matches = new ArrayList<>();
                int skip = Math.abs(rank) - 1;
                int limit = maxLen == 0 ? all.size() : Math.min(maxLen, all.size());
                for (int j = 0; j < limit && (count == 0 || matches.size() < count); j++) {
                    int i = rank < 0 ? all.size() - 1 - j : j;
                    if (all.get(i).equals(op[2]) && skip-- <= 0) {
                        matches.add((long) i);
                    }
                }
                return matches;
            }
            case "LMOVE", "RPOPLPUSH", "BLMOVE" -> {
                boolean fromLeft = op[0].equals("RPOPLPUSH") ? false : op[3].equals("LEFT");
                boolean toLeft = op[0].equals("RPOPLPUSH") || op[4].equals("LEFT");
                if (l == null) {
                    return null;
                }
                String e = fromLeft ? l.removeFirst() : l.removeLast();
                dropIfEmpty(k);
                List<String> d = lists.computeIfAbsent(op[2], x -> new ArrayList<>());
                if (toLeft) {
                    d.addFirst(e);
                } else {
                    d.add(e);
                }
                return e;
            }
            case "LMPOP", "BLPOP" -> {
                boolean blocking = op[0].equals("BLPOP");
                List<String> keys = blocking ? Arrays.asList(op).subList(1, op.length - 1)
                        : Arrays.asList(op).subList(2, 2 + Integer.parseInt(op[1]));
                int count = blocking ? 1 : Integer.parseInt(op[op.length - 1]);
                boolean left = blocking || op[2 + keys.size()].equals("LEFT");
                for (String key : keys) {
                    List<String> from = lists.get(key);
                    if (from != null) {
                        List<Object> popped = new ArrayList<>();
                        for (int i = 0; i < count && !from.isEmpty(); i++) {
                            popped.add(left ? from.removeFirst() : from.removeLast());
                        }
                        dropIfEmpty(key);
                        return blocking ? List.of(key, popped.getFirst()) : List.of(key, popped);
                    }
                }
                return null;
            }
            case "DEL" -> {
                expiry.remove(k);
                return lists.remove(k) == null ? 0L : 1L;
            }
            case "PEXPIRE" -> {
                if (l == null) {
                    return 0L;
                }
                expiry.put(k, now + Long.parseLong(op[2]));
                return 1L;
            }
            case "RENAME" -> {
                if (l == null) {
                    return new RespText.Error("ERR no such key");
                }
                if (!k.equals(op[2])) {
                    lists.put(op[2], lists.remove(k));
                    Long e = expiry.remove(k);
                    if (e == null) {
                        expiry.remove(op[2]);
                    } else {
                        expiry.put(op[2], e);
                    }
                }
                return "OK";
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    private void dropIfEmpty(String k) {
        List<String> l = lists.get(k);
        if (l != null && l.isEmpty()) {
            lists.remove(k);
            expiry.remove(k);
        }
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of("x", "y", "z");
        Arbitrary<String> values = value.list().ofMinSize(1).ofMaxSize(4).map(v -> String.join(" ", v));
        Arbitrary<String> index = Arbitraries.integers().between(-6, 6).map(String::valueOf);
        Arbitrary<String> side = Arbitraries.of("LEFT", "RIGHT");
        Arbitrary<String> count = Arbitraries.integers().between(0, 4).map(String::valueOf);
        Arbitrary<String> millis = Arbitraries.integers().between(1, 2000).map(String::valueOf);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(Arbitraries.of("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), key, values)
                        .as((c, k, v) -> (c + " " + k + " " + v).split(" "))),
                Tuple.of(3, Combinators.combine(Arbitraries.of("LPOP", "RPOP"), key).as((c, k) -> new String[] {c, k})),
                Tuple.of(3, Combinators.combine(Arbitraries.of("LPOP", "RPOP"), key, count)
                        .as((c, k, n) -> new String[] {c, k, n})),
                Tuple.of(2, Combinators.combine(key, index).as((k, i) -> new String[] {"LINDEX", k, i})),
                Tuple.of(2, Combinators.combine(key, index, value).as((k, i, v) -> new String[] {"LSET", k, i, v})),
                Tuple.of(2, Combinators.combine(key, index, index).as((k, a, b) -> new String[] {"LRANGE", k, a, b})),
                Tuple.of(1, Combinators.combine(key, index, index).as((k, a, b) -> new String[] {"LTRIM", k, a, b})),
                Tuple.of(3, Combinators.combine(key, Arbitraries.of("BEFORE", "AFTER"), value, value)
                        .as((k, w, p, v) -> new String[] {"LINSERT", k, w, p, v})),
                Tuple.of(2, Combinators.combine(key, Arbitraries.integers().between(-2, 2), value)
                        .as((k, n, v) -> new String[] {"LREM", k, String.valueOf(n), v})),
                Tuple.of(2, Combinators.combine(key, value, Arbitraries.of(-2, -1, 1, 2), count, count)
                        .as((k, v, r, n, m) -> new String[] {"LPOS", k, v, "RANK", String.valueOf(r), "COUNT", n,
                                "MAXLEN", m})),
                Tuple.of(2, Combinators.combine(key, key, side, side)
                        .as((a, b, f, t) -> new String[] {"LMOVE", a, b, f, t})),
                Tuple.of(1, Combinators.combine(key, key).as((a, b) -> new String[] {"RPOPLPUSH", a, b})),
                Tuple.of(1, Combinators.combine(key, key, side, side)
                        .as((a, b, f, t) -> new String[] {"BLMOVE", a, b, f, t, "0"})),
                Tuple.of(2, Combinators.combine(key, key, side, Arbitraries.integers().between(1, 3))
                        .as((a, b, s, n) -> new String[] {"LMPOP", "2", a, b, s, "COUNT", String.valueOf(n)})),
                Tuple.of(1, Combinators.combine(key, key).as((a, b) -> new String[] {"BLPOP", a, b, "0"})),
                Tuple.of(2, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(1, Combinators.combine(key, millis).as((k, t) -> new String[] {"PEXPIRE", k, t})),
                Tuple.of(1, Combinators.combine(key, key).as((a, b) -> new String[] {"RENAME", a, b})),
                Tuple.of(2, millis.map(t -> new String[] {"ADVANCE", t})),
                Tuple.of(1, Arbitraries.just(new String[] {"RESTART"})),
                Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(1).ofMaxSize(50).map(ops -> ops.stream().map(o -> Arrays.copyOf(o, o.length)).toList());
    }
}
