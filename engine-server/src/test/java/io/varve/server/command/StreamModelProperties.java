package io.varve.server.command;

import io.varve.server.store.StreamId;
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
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random stream programs (XADD with and without MAXLEN, XDEL, XTRIM, consumer groups read with XREADGROUP and
 * acknowledged with XACK, XPENDING, DEL) against a TreeMap per stream: every reply must be the model's, and
 * after each step so must each stream's entries and length. Programs also restart the server from its files,
 * compact, and move the clock that {@code *} IDs come from.
 */
class StreamModelProperties implements ModelRun.Model {

    private static final List<String> KEYS = List.of("a", "b");

    private static final class Group {
        StreamId lastDelivered;
        final TreeMap<StreamId, String> pending = new TreeMap<>();

        Group(StreamId lastDelivered) {
            this.lastDelivered = lastDelivered;
        }
    }

    private static final class Stream {
        final TreeMap<StreamId, String> entries = new TreeMap<>();
        StreamId last = StreamId.MIN;
        final Map<String, Group> groups = new TreeMap<>();
    }

    private final Map<String, Stream> streams = new HashMap<>();

    @Property(tries = 100)
    void streamsBehaveLikeSortedMaps(@ForAll("programs") List<String[]> program,
            @ForAll boolean slotted) throws Exception {
        streams.clear();
        // Streams never expire here: the programs set no deadlines, so the map stays empty.
        ModelRun.run(program, new HashMap<>(), this, slotted);
    }

    @Override
    public void expire(String key) {
        streams.remove(key);
    }

    @Override
    public void step(InProcessServer s, String[] op, String where) {
        String[] run = pickPending(op);
        assertEquals(expected(run, s.clock.get()), RespText.parse(s.call(run)), where);
    }

    @Override
    public void check(InProcessServer s, String where) {
        for (String k : KEYS) {
            Stream st = streams.get(k);
            List<Object> model = new ArrayList<>();
            if (st != null) {
                st.entries.forEach((id, v) -> model.add(entry(id, v)));
            }
            assertEquals(model, RespText.parse(s.call("XRANGE", k, "-", "+")), where + ": stream " + k);
            assertEquals((long) model.size(), RespText.parse(s.call("XLEN", k)), where + ": length of " + k);
            if (st != null && st.groups.containsKey("g")) {
                assertEquals(expected(new String[] {"XPENDING", k, "g"}, s.clock.get()),
                        RespText.parse(s.call("XPENDING", k, "g")), where + ": pending of g in " + k);
            }
        }
    }

    private static List<Object> entry(StreamId id, String value) {
        return List.of(id.toString(), List.of("f", value));
    }

    private static RespText.Error error(String text) {
        return new RespText.Error(text);
    }

    private static StreamId id(String text) {
        String[] p = text.split("-");
        return new StreamId(Long.parseLong(p[0]), Long.parseLong(p[1]));
    }

    @net.jqwik.api.Example
    void anAcknowledgedEntryLeavesThePendingCount() throws Exception {
        streamsBehaveLikeSortedMaps(List.of(new String[] {"XADD", "a", "1-0", "f", "x"},
                new String[] {"XGROUP", "CREATE", "a", "g", "0", "MKSTREAM"},
                new String[] {"XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "a", ">"},
                new String[] {"XACK", "a", "g", "1-0"},
                new String[] {"XPENDING", "a", "g"}), false);
    }

    /**
     * XACK's {@code #i} stands for the i-th pending entry of the group in the model (a random ID would
     * almost never be pending), resolved when the step runs.
     */
    private String[] pickPending(String[] op) {
        if (!op[0].equals("XACK") || !op[3].startsWith("#")) {
            return op;
        }
        Stream st = streams.get(op[1]);
        Group group = st == null ? null : st.groups.get(op[2]);
        List<StreamId> pending = group == null ? List.of() : new ArrayList<>(group.pending.keySet());
        int i = Integer.parseInt(op[3].substring(1));
        String id = pending.isEmpty() ? "0-1" : pending.get(i % pending.size()).toString();
        return new String[] {op[0], op[1], op[2], id};
    }

    /** The reply the model gives to {@code op}, applying its effect. */
    private Object expected(String[] op, long now) {
        String k = op[1];
        Stream st = streams.get(k);
        switch (op[0]) {
            case "XADD" -> {
                boolean trimmed = op[2].equals("MAXLEN");
                String given = op[trimmed ? 4 : 2];
                StreamId last = st == null ? StreamId.MIN : st.last;
                StreamId next;
                if (given.equals("*")) {
                    next = now > last.ms() ? new StreamId(now, 0) : last.next();
                } else {
                    next = id(given);
                    if (next.isZero()) {
                        return error("ERR The ID specified in XADD must be greater than 0-0");
                    }
                }
                if (st == null) {
                    st = new Stream();
                    streams.put(k, st);
                }
                if (next.compareTo(st.last) <= 0) {
                    return error("ERR The ID specified in XADD is equal or smaller than the target stream top item");
                }
                st.entries.put(next, op[op.length - 1]);
                st.last = next;
                if (trimmed) {
                    trim(st, Long.parseLong(op[3]));
                }
                return next.toString();
            }
            case "XDEL" -> {
                return st == null ? 0L : st.entries.remove(id(op[2])) == null ? 0L : 1L;
            }
            case "XTRIM" -> {
                if (st == null) {
                    return 0L;
                }
                int before = st.entries.size();
                if (op[2].equals("MAXLEN")) {
                    trim(st, Long.parseLong(op[3]));
                } else {
                    st.entries.headMap(id(op[3])).clear();
                }
                return (long) (before - st.entries.size());
            }
            case "XGROUP" -> {
                k = op[2];
                st = streams.get(k);
                if (st == null) {
                    st = new Stream();
                    streams.put(k, st);
                }
                String g = op[3];
                if (st.groups.containsKey(g)) {
                    return error("BUSYGROUP Consumer Group name already exists");
                }
                st.groups.put(g, new Group(op[4].equals("$") ? st.last : StreamId.MIN));
                return "OK";
            }
            case "XREADGROUP" -> {
                String g = op[2];
                String consumer = op[3];
                String key = op[7];
                assertEquals(">", op[8]);
                Stream target = streams.get(key);
                Group group = target == null ? null : target.groups.get(g);
                if (group == null) {
                    return error("NOGROUP No such key '" + key + "' or consumer group '" + g
                            + "' in XREADGROUP with GROUP option");
                }
                int count = Integer.parseInt(op[5]);
                List<Object> delivered = new ArrayList<>();
                for (Map.Entry<StreamId, String> e : target.entries.tailMap(group.lastDelivered, false).entrySet()) {
                    if (delivered.size() == count) {
                        break;
                    }
                    delivered.add(entry(e.getKey(), e.getValue()));
                    group.lastDelivered = e.getKey();
                    group.pending.put(e.getKey(), consumer);
                }
                return delivered.isEmpty() ? null : List.of(List.of(key, delivered));
            }
            case "XACK" -> {
                Group group = st == null ? null : st.groups.get(op[2]);
                return group == null || group.pending.remove(id(op[3])) == null ? 0L : 1L;
            }
            case "XPENDING" -> {
                Group group = st == null ? null : st.groups.get(op[2]);
                if (group == null) {
                    return error("NOGROUP No such key '" + k + "' or consumer group '" + op[2] + "'");
                }
                if (group.pending.isEmpty()) {
                    return Arrays.asList(0L, null, null, null);
                }
                TreeMap<String, Long> owners = new TreeMap<>();
                group.pending.values().forEach(c -> owners.merge(c, 1L, Long::sum));
                List<Object> perConsumer = new ArrayList<>();
                owners.forEach((c, n) -> perConsumer.add(List.of(c, Long.toString(n))));
                return List.of((long) group.pending.size(), group.pending.firstKey().toString(),
                        group.pending.lastKey().toString(), perConsumer);
            }
            case "DEL" -> {
                return streams.remove(k) == null ? 0L : 1L;
            }
            default -> throw new IllegalArgumentException(op[0]);
        }
    }

    private static void trim(Stream st, long maxLength) {
        while (st.entries.size() > maxLength) {
            st.entries.pollFirstEntry();
        }
    }

    @Provide
    Arbitrary<List<String[]>> programs() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of("x", "y", "z");
        Arbitrary<String> smallId = Combinators.combine(Arbitraries.integers().between(0, 4),
                Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(0)), Tuple.of(1, Arbitraries.just(1)))).as((ms, seq) -> ms + "-" + seq);
        Arbitrary<String> addId = Arbitraries.frequencyOf(Tuple.of(12, smallId), Tuple.of(1, Arbitraries.just("*")));
        Arbitrary<String> group = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just("g")), Tuple.of(1, Arbitraries.just("h")));
        Arbitrary<String> consumer = Arbitraries.of("c1", "c2");
        Arbitrary<String> length = Arbitraries.integers().between(0, 4).map(String::valueOf);
        Arbitrary<String[]> op = Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(key, addId, value).as((k, i, v) -> new String[] {"XADD", k, i, "f", v})),
                Tuple.of(2, Combinators.combine(key, length, addId, value)
                        .as((k, n, i, v) -> new String[] {"XADD", k, "MAXLEN", n, i, "f", v})),
                Tuple.of(2, Combinators.combine(key, smallId).as((k, i) -> new String[] {"XDEL", k, i})),
                Tuple.of(1, Combinators.combine(key, length).as((k, n) -> new String[] {"XTRIM", k, "MAXLEN", n})),
                Tuple.of(1, Combinators.combine(key, smallId).as((k, i) -> new String[] {"XTRIM", k, "MINID", i})),
                Tuple.of(4, Combinators.combine(key, group, Arbitraries.of("0", "$"))
                        .as((k, g, from) -> new String[] {"XGROUP", "CREATE", k, g, from, "MKSTREAM"})),
                Tuple.of(4, Combinators.combine(group, consumer, Arbitraries.integers().between(1, 3), key)
                        .as((g, c, n, k) -> new String[] {"XREADGROUP", "GROUP", g, c, "COUNT", String.valueOf(n),
                                "STREAMS", k, ">"})),
                Tuple.of(2, Combinators.combine(key, group, smallId).as((k, g, i) -> new String[] {"XACK", k, g, i})),
                Tuple.of(4, Combinators.combine(key, group, Arbitraries.integers().between(0, 3))
                        .as((k, g, i) -> new String[] {"XACK", k, g, "#" + i})),
                Tuple.of(3, Combinators.combine(key, group).as((k, g) -> new String[] {"XPENDING", k, g})),
                Tuple.of(1, Arbitraries.of("a").map(k -> new String[] {"DEL", k})),
                Tuple.of(1, Arbitraries.integers().between(1, 3).map(t -> new String[] {"ADVANCE", String.valueOf(t)})),
                Tuple.of(1, Arbitraries.just(new String[] {"RESTART"})),
                Tuple.of(1, Arbitraries.just(new String[] {"COMPACT"})));
        return op.list().ofMinSize(20).ofMaxSize(60).map(ops -> ops.stream().map(o -> Arrays.copyOf(o, o.length)).toList());
    }
}
