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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random set programs against a TreeSet per key. Deterministic replies must equal the model's; SPOP and
 * SRANDMEMBER, which choose at random, must choose from the model (distinct members, the right count) and
 * SPOP's choice is then applied to the model. Programs delete, re-create, expire, restart and compact.
 */
class SetModelProperties implements ModelRun.Model {

    private static final List<String> KEYS = List.of("a", "b", "c");

    private final Map<String, TreeSet<String>> sets = new HashMap<>();
    private final Map<String, Long> expiry = new HashMap<>();

    @Property(tries = 150)
    void setsBehaveLikeTreeSets(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        sets.clear();
        expiry.clear();
        ModelRun.run(program, expiry, this, slotted);
    }

    @Override
    public void expire(String key) {
        sets.remove(key);
    }

    @Override
    public void step(InProcessServer s, String[] op, String where) {
        switch (op[0]) {
            case "SPOP", "SRANDMEMBER" -> checkRandom(op, RespText.parse(s.call(op)), where);
            default -> assertEquals(expected(op, s.clock.get()), normalize(op[0], RespText.parse(s.call(op))), where);
        }
    }

    @Override
    public void check(InProcessServer s, String where) {
        for (String k : KEYS) {
            Set<String> model = sets.getOrDefault(k, new TreeSet<>());
            assertEquals(new ArrayList<>(model), RespText.parse(s.call("SMEMBERS", k)), where + ": members of " + k);
            assertEquals((long) model.size(), RespText.parse(s.call("SCARD", k)), where + ": size of " + k);
        }
    }

    /** The algebra's order is unspecified: compare its members sorted. */
    @SuppressWarnings("unchecked")
    private static Object normalize(String command, Object reply) {
        if (reply instanceof List<?> l && Set.of("SINTER", "SUNION", "SDIFF").contains(command)) {
            return new ArrayList<>(new TreeSet<>((List<String>) l));
        }
        return reply;
    }

    @SuppressWarnings("unchecked")
    private void checkRandom(String[] op, Object reply, String where) {
        Set<String> model = sets.getOrDefault(op[1], new TreeSet<>());
        if (op.length == 2) {
            if (model.isEmpty()) {
                assertEquals(null, reply, where);
                return;
            }
            assertTrue(model.contains((String) reply), where + ": " + reply);
            if (op[0].equals("SPOP")) {
                model.remove((String) reply);
                dropIfEmpty(op[1]);
            }
            return;
        }
        List<String> chosen = (List<String>) reply;
        long count = Long.parseLong(op[2]);
        assertTrue(model.containsAll(chosen), where + ": " + chosen);
        if (count < 0) {
            assertEquals(model.isEmpty() ? 0 : -count, chosen.size(), where);
            return;
        }
        assertEquals(Math.min(count, model.size()), chosen.size(), where);
        assertEquals(chosen.size(), new HashSet<>(chosen).size(), where + ": distinct");
        if (op[0].equals("SPOP")) {
            chosen.forEach(model::remove);
            dropIfEmpty(op[1]);
        }
    }

    private Object expected(String[] op, long now) {
        String k = op[1];
        TreeSet<String> set = sets.get(k);
        List<String> rest = Arrays.asList(op).subList(2, op.length);
        switch (op[0]) {
            case "SADD" -> {
                TreeSet<String> s = sets.computeIfAbsent(k, x -> new TreeSet<>());
                long added = rest.stream().filter(s::add).count();
                return added;
            }
            case "SREM" -> {
                long removed = set == null ? 0 : rest.stream().filter(set::remove).count();
                dropIfEmpty(k);
                return removed;
            }
            case "SISMEMBER" -> {
                return set != null && set.contains(op[2]) ? 1L : 0L;
            }
            case "SMISMEMBER" -> {
                return rest.stream().map(m -> (Object) (set != null && set.contains(m) ? 1L : 0L)).toList();
            }
            case "SMOVE" -> {
                if (set == null || !set.contains(op[3])) {
                    return 0L;
                }
                set.remove(op[3]);
                sets.computeIfAbsent(op[2], x -> new TreeSet<>()).add(op[3]);
                dropIfEmpty(k);
                return 1L;
            }
            case "SINTER", "SUNION", "SDIFF" -> {
                return new ArrayList<Object>(compute(op[0], Arrays.asList(op).subList(1, op.length)));
            }
            case "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE" -> {
                TreeSet<String> result = compute(op[0].replace("STORE", ""), rest);
                expiry.remove(k);
                sets.put(k, result);
                dropIfEmpty(k);
                return (long) result.size();
            }
            case "SINTERCARD" -> {
                int n = Integer.parseInt(op[1]);
                long size = compute("SINTER", Arrays.asList(op).subList(2, 2 + n)).size();
                long limit = Long.parseLong(op[op.length - 1]);
                return limit == 0 ? size : Math.min(size, limit);
            }
            case "DEL" -> {
                expiry.remove(k);
                return sets.remove(k) == null ? 0L : 1L;
            }
            case "PEXPIRE" -> {
                if (set == null) {
                    return 0L;
                }
                expiry.put(k, now + Long.parseLong(op[2]));
                return 1L;
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    private TreeSet<String> compute(String op, List<String> keys) {
        TreeSet<String> result = new TreeSet<>(sets.getOrDefault(keys.getFirst(), new TreeSet<>()));
        for (String key : keys.subList(1, keys.size())) {
            Set<String> other = sets.getOrDefault(key, new TreeSet<>());
            switch (op) {
                case "SINTER" -> result.retainAll(other);
                case "SUNION" -> result.addAll(other);
                default -> result.removeAll(other);
            }
        }
        return result;
    }

    private void dropIfEmpty(String k) {
        Set<String> s = sets.get(k);
        if (s != null && s.isEmpty()) {
            sets.remove(k);
            expiry.remove(k);
        }
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> member = Arbitraries.of("m1", "m2", "m3", "m4", "m5");
        Arbitrary<List<String>> members = member.list().ofMinSize(1).ofMaxSize(4);
        Arbitrary<List<String>> keys = key.list().ofMinSize(1).ofMaxSize(3);
        Arbitrary<String> millis = Arbitraries.integers().between(1, 2000).map(String::valueOf);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(key, members).as((k, m) -> with("SADD", k, m))),
                Tuple.of(3, Combinators.combine(key, members).as((k, m) -> with("SREM", k, m))),
                Tuple.of(2, Combinators.combine(key, member).as((k, m) -> new String[] {"SISMEMBER", k, m})),
                Tuple.of(1, Combinators.combine(key, members).as((k, m) -> with("SMISMEMBER", k, m))),
                Tuple.of(2, Combinators.combine(key, key, member).as((a, b, m) -> new String[] {"SMOVE", a, b, m})),
                Tuple.of(2, key.map(k -> new String[] {"SPOP", k})),
                Tuple.of(2, Combinators.combine(key, Arbitraries.integers().between(0, 4))
                        .as((k, n) -> new String[] {"SPOP", k, String.valueOf(n)})),
                Tuple.of(1, key.map(k -> new String[] {"SRANDMEMBER", k})),
                Tuple.of(2, Combinators.combine(key, Arbitraries.integers().between(-6, 6))
                        .as((k, n) -> new String[] {"SRANDMEMBER", k, String.valueOf(n)})),
                Tuple.of(3, Combinators.combine(Arbitraries.of("SINTER", "SUNION", "SDIFF"), keys)
                        .as((c, ks) -> with(c, ks.getFirst(), ks.subList(1, ks.size())))),
                Tuple.of(3, Combinators.combine(Arbitraries.of("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), key, keys)
                        .as((c, d, ks) -> with(c, d, ks))),
                Tuple.of(1, Combinators.combine(keys, Arbitraries.integers().between(0, 3)).as((ks, l) -> {
                    List<String> args = new ArrayList<>(ks);
                    args.add("LIMIT");
                    args.add(String.valueOf(l));
                    return with("SINTERCARD", String.valueOf(ks.size()), args);
                })),
                Tuple.of(2, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(1, Combinators.combine(key, millis).as((k, t) -> new String[] {"PEXPIRE", k, t})),
                Tuple.of(2, millis.map(t -> new String[] {"ADVANCE", t})),
                Tuple.of(1, Arbitraries.just(new String[] {"RESTART"})),
                Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(1).ofMaxSize(50).map(ops -> ops.stream().map(o -> Arrays.copyOf(o, o.length)).toList());
    }

    private static String[] with(String command, String first, List<String> more) {
        List<String> all = new ArrayList<>();
        all.add(command);
        all.add(first);
        all.addAll(more);
        return all.toArray(new String[0]);
    }
}
