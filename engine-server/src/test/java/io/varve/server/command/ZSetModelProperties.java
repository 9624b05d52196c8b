package io.varve.server.command;

import io.varve.core.DbIterator;
import io.varve.server.resp.DoubleFormat;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Metadata;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random sorted-set programs against a model of member→score maps ordered by (score, member): every reply
 * must be the model's, and after each step so must each key's type, whole range with scores, cardinality,
 * ranks, and score and lexicographic ranges. Programs overwrite sets with strings, delete and re-create
 * them, expire them, restart the server from its files, flush and compact, so versions, recovery and the
 * compaction filter (both subkey kinds) are under test.
 */
class ZSetModelProperties implements ModelRun.Model {

    private static final List<String> KEYS = List.of("a", "b");
    private static final List<String> MEMBERS = List.of("m1", "m2", "m3", "m4", "x");
    private static final List<String> SCORES = List.of("-inf", "-1", "0", "0.5", "1", "2", "2", "inf");
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final Comparator<Map.Entry<String, Double>> ORDER = Comparator
            .comparing((Map.Entry<String, Double> e) -> e.getValue()).thenComparing(Map.Entry::getKey);

    private final Map<String, Map<String, Double>> zsets = new HashMap<>();
    private final Map<String, String> strings = new HashMap<>();
    private final Map<String, Long> expiry = new HashMap<>();

    @Property(tries = 150)
    void sortedSetsBehaveLikeTheModel(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        zsets.clear();
        strings.clear();
        expiry.clear();
        ModelRun.run(program, expiry, this, slotted);
    }

    @Override
    public void expire(String key) {
        zsets.remove(key);
        strings.remove(key);
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

    @Override
    public void afterCompaction(InProcessServer s, String where) {
        assertOnlyLiveSubkeys(s, where);
    }

    /**
     * After a full compaction every subkey on disk belongs to the live version of a live sorted set, and each
     * set has exactly its two subkeys per member: the filter dropped both kinds of garbage.
     */
    private void assertOnlyLiveSubkeys(InProcessServer s, String where) {
        Map<String, Metadata> live = new HashMap<>();
        Map<String, Long> subkeys = new HashMap<>();
        try (DbIterator it = s.db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = it.key();
                if (KeyEncoding.isMetadataKey(key)) {
                    Metadata meta = Metadata.decode(it.value());
                    assertFalse(meta.isExpired(s.clock.get()), where + ": expired metadata left after compaction");
                    live.put(new String(KeyEncoding.userKeyOfMetadata(key), StandardCharsets.UTF_8), meta);
                } else if (KeyEncoding.looksLikeSubkey(key)) {
                    int prefix = KeyEncoding.subkeyPrefixLength(key);
                    String user = new String(KeyEncoding.userKeyOfSubkey(key, prefix), StandardCharsets.UTF_8);
                    Metadata owner = live.get(user);
                    assertTrue(owner != null && owner.version() == KeyEncoding.versionOfSubkey(key, prefix),
                            where + ": a subkey of " + user + " outlived its version");
                    subkeys.merge(user, 1L, Long::sum);
                }
            }
        }
        for (String k : KEYS) {
            long members = zsets.getOrDefault(k, Map.of()).size();
            assertEquals(2 * members, subkeys.getOrDefault(k, 0L).longValue(), where + ": subkeys of " + k);
        }
    }

    private void checkKey(InProcessServer s, String k, String where) {
        String type = zsets.containsKey(k) ? "zset" : strings.containsKey(k) ? "string" : "none";
        assertEquals(type, RespText.parse(s.call("TYPE", k)), where + ": type of " + k);
        if (strings.containsKey(k)) {
            assertEquals(new RespText.Error(WRONGTYPE), RespText.parse(s.call("ZCARD", k)), where);
            return;
        }
        List<Map.Entry<String, Double>> sorted = sorted(k);
        assertEquals(withScores(sorted), RespText.parse(s.call("ZRANGE", k, "0", "-1", "WITHSCORES")),
                where + ": zset " + k);
        assertEquals((long) sorted.size(), RespText.parse(s.call("ZCARD", k)), where + ": card of " + k);
        List<Object> reversed = new ArrayList<>();
        for (int i = sorted.size() - 1; i >= 0; i--) {
            reversed.add(sorted.get(i).getKey());
        }
        assertEquals(reversed, RespText.parse(s.call("ZREVRANGE", k, "0", "-1")), where + ": reversed " + k);
        for (int i = 0; i < sorted.size(); i++) {
            String m = sorted.get(i).getKey();
            assertEquals((long) i, RespText.parse(s.call("ZRANK", k, m)), where + ": rank of " + m);
            assertEquals(DoubleFormat.format(sorted.get(i).getValue()), RespText.parse(s.call("ZSCORE", k, m)), where);
        }
        List<Object> midRange = new ArrayList<>();
        for (Map.Entry<String, Double> e : sorted) {
            if (e.getValue() > 0 && e.getValue() <= 2) {
                midRange.add(e.getKey());
            }
        }
        assertEquals(midRange, RespText.parse(s.call("ZRANGEBYSCORE", k, "(0", "2")), where + ": (0..2] of " + k);
        assertEquals((long) midRange.size(), RespText.parse(s.call("ZCOUNT", k, "(0", "2")), where);
        List<Object> lex = new ArrayList<>(new TreeMap<>(zsets.getOrDefault(k, Map.of())).keySet());
        lex.removeIf(m -> ((String) m).compareTo("m2") < 0);
        assertEquals(lex, RespText.parse(s.call("ZRANGEBYLEX", k, "[m2", "+")), where + ": lex of " + k);
    }

    private List<Map.Entry<String, Double>> sorted(String k) {
        List<Map.Entry<String, Double>> out = new ArrayList<>(zsets.getOrDefault(k, Map.of()).entrySet());
        out.sort(ORDER);
        return out;
    }

    private static List<Object> withScores(List<Map.Entry<String, Double>> entries) {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<String, Double> e : entries) {
            out.add(e.getKey());
            out.add(DoubleFormat.format(e.getValue()));
        }
        return out;
    }

    private static double score(String text) {
        return switch (text) {
            case "inf", "+inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    /** Replaces whatever {@code k} holds by the sorted set {@code members} (absent when empty), without expiry. */
    private void store(String k, Map<String, Double> members) {
        strings.remove(k);
        expiry.remove(k);
        if (members.isEmpty()) {
            zsets.remove(k);
        } else {
            zsets.put(k, members);
        }
    }

    private void dropIfEmpty(String k) {
        if (zsets.containsKey(k) && zsets.get(k).isEmpty()) {
            zsets.remove(k);
            expiry.remove(k);
        }
    }

    /** The reply the model gives to {@code op}, applying its effect. */
    private Object expected(String[] op, long now) {
        String k = op[1];
        if (op[0].equals("SET")) {
            zsets.remove(k);
            expiry.remove(k);
            strings.put(k, op[2]);
            return "OK";
        }
        if (op[0].equals("DEL")) {
            boolean existed = zsets.remove(k) != null | strings.remove(k) != null;
            expiry.remove(k);
            return existed ? 1L : 0L;
        }
        if (op[0].equals("PEXPIRE")) {
            if (!zsets.containsKey(k) && !strings.containsKey(k)) {
                return 0L;
            }
            expiry.put(k, now + Long.parseLong(op[2]));
            return 1L;
        }
        boolean storeOp = op[0].equals("ZRANGESTORE") || op[0].equals("ZUNIONSTORE");
        List<String> sources = op[0].equals("ZUNIONSTORE") ? List.of(op[3], op[4])
                : op[0].equals("ZRANGESTORE") ? List.of(op[2]) : List.of(k);
        for (String src : sources) {
            if (strings.containsKey(src)) {
                return new RespText.Error(WRONGTYPE);
            }
        }
        Map<String, Double> z = zsets.get(k);
        switch (op[0]) {
            case "ZRANGE" -> {
                return range(op);
            }
            case "ZADD" -> {
                List<String> flags = new ArrayList<>();
                int i = 2;
                while (!Character.isDigit(op[i].charAt(op[i].length() - 1)) && !op[i].endsWith("inf")) {
                    flags.add(op[i++]);
                }
                boolean nx = flags.contains("NX");
                boolean xx = flags.contains("XX");
                boolean gt = flags.contains("GT");
                boolean lt = flags.contains("LT");
                boolean incr = flags.contains("INCR");
                Map<String, Double> target = z == null ? new HashMap<>() : z;
                long added = 0;
                long changed = 0;
                Double result = null;
                for (; i < op.length; i += 2) {
                    double sc = score(op[i]);
                    String m = op[i + 1];
                    Double cur = target.get(m);
                    if (cur == null) {
                        if (xx) {
                            continue;
                        }
                        target.put(m, sc == 0 ? 0.0 : sc);
                        result = sc;
                        added++;
                        continue;
                    }
                    if (nx) {
                        continue;
                    }
                    double next = incr ? cur + sc : sc;
                    if (Double.isNaN(next)) {
                        return new RespText.Error("ERR resulting score is not a number (NaN)");
                    }
                    if ((gt && next <= cur) || (lt && next >= cur)) {
                        continue;
                    }
                    result = next;
                    if (next != cur) {
                        target.put(m, next == 0 ? 0.0 : next);
                        changed++;
                    }
                }
                if (z == null && !target.isEmpty()) {
                    zsets.put(k, target);
                }
                if (incr) {
                    return result == null ? null : DoubleFormat.format(result);
                }
                return flags.contains("CH") ? added + changed : added;
            }
            case "ZINCRBY" -> {
                Double cur = z == null ? null : z.get(op[3]);
                double next = (cur == null ? 0 : cur) + score(op[2]);
                if (cur == null) {
                    next = score(op[2]);
                }
                if (Double.isNaN(next)) {
                    return new RespText.Error("ERR resulting score is not a number (NaN)");
                }
                zsets.computeIfAbsent(k, x -> new HashMap<>()).put(op[3], next == 0 ? 0.0 : next);
                return DoubleFormat.format(next);
            }
            case "ZREM" -> {
                long n = 0;
                for (int i = 2; i < op.length; i++) {
                    n += z != null && z.remove(op[i]) != null ? 1 : 0;
                }
                dropIfEmpty(k);
                return n;
            }
            case "ZPOPMIN", "ZPOPMAX" -> {
                List<Map.Entry<String, Double>> sorted = sorted(k);
                if (op[0].equals("ZPOPMAX")) {
                    sorted = sorted.reversed();
                }
                int n = op.length == 3 ? Integer.parseInt(op[2]) : 1;
                List<Map.Entry<String, Double>> popped = sorted.subList(0, Math.min(n, sorted.size()));
                List<Object> reply = withScores(popped);
                popped.forEach(e -> z.remove(e.getKey()));
                dropIfEmpty(k);
                return reply;
            }
            case "ZREMRANGEBYSCORE" -> {
                double min = score(op[2]);
                double max = score(op[3]);
                long n = z == null ? 0 : z.entrySet().stream().filter(e -> e.getValue() >= min && e.getValue() <= max).count();
                if (z != null) {
                    z.values().removeIf(v -> v >= min && v <= max);
                }
                dropIfEmpty(k);
                return n;
            }
            case "ZREMRANGEBYRANK", "ZRANGESTORE" -> {
                String src = op[0].equals("ZRANGESTORE") ? op[2] : k;
                List<Map.Entry<String, Double>> sorted = sorted(src);
                int base = op[0].equals("ZRANGESTORE") ? 3 : 2;
                long size = sorted.size();
                long start = Long.parseLong(op[base]);
                long stop = Long.parseLong(op[base + 1]);
                start = start < 0 ? Math.max(0, start + size) : start;
                stop = stop < 0 ? stop + size : Math.min(stop, size - 1);
                List<Map.Entry<String, Double>> range = start > stop || start >= size ? List.of()
                        : sorted.subList((int) start, (int) stop + 1);
                if (op[0].equals("ZRANGESTORE")) {
                    Map<String, Double> copy = new HashMap<>();
                    range.forEach(e -> copy.put(e.getKey(), e.getValue()));
                    store(k, copy);
                } else {
                    range.forEach(e -> z.remove(e.getKey()));
                    dropIfEmpty(k);
                }
                return (long) range.size();
            }
            case "ZUNIONSTORE" -> {
                Map<String, Double> union = new HashMap<>();
                for (String src : sources) {
                    zsets.getOrDefault(src, Map.of()).forEach((m, sc) -> union.merge(m, sc, (x, y) -> {
                        double sum = x + y;
                        return Double.isNaN(sum) ? 0.0 : sum;
                    }));
                }
                store(k, union);
                return (long) union.size();
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    /** ZRANGE k a b [BYSCORE|BYLEX] [REV] [LIMIT o n] [WITHSCORES], computed from the model. */
    private Object range(String[] op) {
        List<String> words = List.of(op).subList(4, op.length);
        boolean rev = words.contains("REV");
        boolean byScore = words.contains("BYSCORE");
        boolean byLex = words.contains("BYLEX");
        boolean withScores = words.contains("WITHSCORES");
        int limitAt = words.indexOf("LIMIT");
        List<Map.Entry<String, Double>> sorted = sorted(op[1]);
        List<Map.Entry<String, Double>> picked = new ArrayList<>();
        if (!byScore && !byLex) {
            long size = sorted.size();
            long start = Long.parseLong(op[2]);
            long stop = Long.parseLong(op[3]);
            start = start < 0 ? Math.max(0, start + size) : start;
            stop = stop < 0 ? stop + size : Math.min(stop, size - 1);
            List<Map.Entry<String, Double>> ordered = rev ? sorted.reversed() : sorted;
            if (start <= stop && start < size) {
                picked.addAll(ordered.subList((int) start, (int) stop + 1));
            }
        } else {
            String lo = rev ? op[3] : op[2];
            String hi = rev ? op[2] : op[3];
            List<Map.Entry<String, Double>> ordered = sorted;
            if (byLex) {
                ordered = new ArrayList<>(sorted);
                ordered.sort(Map.Entry.comparingByKey());
            }
            for (Map.Entry<String, Double> e : rev ? ordered.reversed() : ordered) {
                boolean in = byScore ? scoreAbove(e.getValue(), lo) && scoreBelow(e.getValue(), hi)
                        : lexAbove(e.getKey(), lo) && lexBelow(e.getKey(), hi);
                if (in) {
                    picked.add(e);
                }
            }
            if (limitAt >= 0) {
                long offset = Long.parseLong(words.get(limitAt + 1));
                long count = Long.parseLong(words.get(limitAt + 2));
                if (offset < 0) {
                    picked.clear();
                } else {
                    picked = new ArrayList<>(picked.subList((int) Math.min(offset, picked.size()), picked.size()));
                    if (count >= 0 && count < picked.size()) {
                        picked = picked.subList(0, (int) count);
                    }
                }
            }
        }
        if (withScores) {
            return withScores(picked);
        }
        List<Object> members = new ArrayList<>();
        picked.forEach(e -> members.add(e.getKey()));
        return members;
    }

    private static String[] query(List<String> base, String rev, String withScores, List<String> limit) {
        List<String> a = new ArrayList<>(base);
        if (!rev.isEmpty()) {
            a.add(rev);
        }
        a.addAll(limit);
        if (!withScores.isEmpty()) {
            a.add(withScores);
        }
        return a.toArray(String[]::new);
    }

    private static boolean scoreAbove(double v, String bound) {
        return bound.startsWith("(") ? v > score(bound.substring(1)) : v >= score(bound);
    }

    private static boolean scoreBelow(double v, String bound) {
        return bound.startsWith("(") ? v < score(bound.substring(1)) : v <= score(bound);
    }

    private static boolean lexAbove(String m, String bound) {
        return switch (bound.charAt(0)) {
            case '-' -> true;
            case '+' -> false;
            case '(' -> m.compareTo(bound.substring(1)) > 0;
            default -> m.compareTo(bound.substring(1)) >= 0;
        };
    }

    private static boolean lexBelow(String m, String bound) {
        return switch (bound.charAt(0)) {
            case '+' -> true;
            case '-' -> false;
            case '(' -> m.compareTo(bound.substring(1)) < 0;
            default -> m.compareTo(bound.substring(1)) <= 0;
        };
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> member = Arbitraries.of(MEMBERS);
        Arbitrary<String> score = Arbitraries.of(SCORES);
        Arbitrary<String> flags = Arbitraries.of("", "NX", "XX", "GT", "LT", "CH", "XX GT", "LT CH", "GT CH");
        Arbitrary<String> index = Arbitraries.integers().between(-4, 4).map(String::valueOf);
        Arbitrary<String> millis = Arbitraries.longs().between(1, 3000).map(String::valueOf);
        Arbitrary<String[]> zadd = Combinators.combine(key, flags, score, member, score, member)
                .as((k, f, s1, m1, s2, m2) -> {
                    List<String> a = new ArrayList<>(List.of("ZADD", k));
                    if (!f.isEmpty()) {
                        a.addAll(List.of(f.split(" ")));
                    }
                    a.addAll(List.of(s1, m1, s2, m2));
                    return a.toArray(String[]::new);
                });
        Arbitrary<String> scoreBound = Arbitraries.of("-inf", "+inf", "-1", "(-1", "0", "(0", "0.5", "(1", "1", "2",
                "(2");
        Arbitrary<String> lexBound = Arbitraries.of("-", "+", "[m1", "(m1", "[m3", "(m3", "[x", "(x", "[", "[m");
        Arbitrary<List<String>> limit = Arbitraries.oneOf(Arbitraries.just(List.<String>of()),
                Combinators.combine(Arbitraries.integers().between(-1, 4), Arbitraries.integers().between(-1, 4))
                        .as((o, n) -> List.of("LIMIT", o.toString(), n.toString())));
        Arbitrary<String[]> rangeQuery = Arbitraries.oneOf(
                Combinators.combine(key, index, index, Arbitraries.of("", "REV"), Arbitraries.of("", "WITHSCORES"))
                        .as((k, a, b, r, w) -> query(List.of("ZRANGE", k, a, b), r, w, List.of())),
                Combinators.combine(key, scoreBound, scoreBound, Arbitraries.of("", "REV"), Arbitraries.of("", "WITHSCORES"), limit)
                        .as((k, a, b, r, w, l) -> query(List.of("ZRANGE", k, a, b, "BYSCORE"), r, w, l)),
                Combinators.combine(key, lexBound, lexBound, Arbitraries.of("", "REV"), limit)
                        .as((k, a, b, r, l) -> query(List.of("ZRANGE", k, a, b, "BYLEX"), r, "", l)));
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(4, rangeQuery),
                Tuple.of(8, zadd),
                Tuple.of(2, Combinators.combine(key, Arbitraries.of("", "NX", "XX"), score, member)
                        .as((k, f, s, m) -> f.isEmpty() ? new String[] {"ZADD", k, "INCR", s, m}
                                : new String[] {"ZADD", k, f, "INCR", s, m})),
                Tuple.of(3, Combinators.combine(key, score, member).as((k, s, m) -> new String[] {"ZINCRBY", k, s, m})),
                Tuple.of(3, Combinators.combine(key, member, member).as((k, m1, m2) -> new String[] {"ZREM", k, m1, m2})),
                Tuple.of(2, Combinators.combine(key, Arbitraries.of("ZPOPMIN", "ZPOPMAX"), Arbitraries.of("", "1", "3"))
                        .as((k, c, n) -> n.isEmpty() ? new String[] {c, k} : new String[] {c, k, n})),
                Tuple.of(1, Combinators.combine(key, score, score).as((k, a, b) -> new String[] {"ZREMRANGEBYSCORE", k, a, b})),
                Tuple.of(1, Combinators.combine(key, index, index).as((k, a, b) -> new String[] {"ZREMRANGEBYRANK", k, a, b})),
                Tuple.of(1, Combinators.combine(key, key, index, index)
                        .as((d, src, a, b) -> new String[] {"ZRANGESTORE", d, src, a, b})),
                Tuple.of(1, key.map(d -> new String[] {"ZUNIONSTORE", d, "2", "a", "b"})),
                Tuple.of(1, key.map(k -> new String[] {"SET", k, "str"})),
                Tuple.of(2, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(2, Combinators.combine(key, millis).as((k, t) -> new String[] {"PEXPIRE", k, t})),
                Tuple.of(2, millis.map(t -> new String[] {"ADVANCE", t})),
                Tuple.of(1, Arbitraries.just(new String[] {"RESTART"})),
                Tuple.of(1, Arbitraries.just(new String[] {"FLUSH"})),
                Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(1).ofMaxSize(50);
    }
}
