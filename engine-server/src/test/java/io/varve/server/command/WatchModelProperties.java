package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import io.varve.server.store.ExpirySweeper;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * MULTI/EXEC/WATCH of two watching connections among two writing ones, against a model that knows when each
 * EXEC must abort. The connections' commands are interleaved in a generated order and run one at a time
 * through the real dispatcher; writers SET (alone or grouped into a {@link SetCommandRun}), INCR, DEL, expire and
 * persist keys, push and pop a list (BLPOP only when it has data), SWAPDB, FLUSHDB, FLUSHALL and MOVE, and the
 * clock moves and the expiry sweep runs between them. A fifth connection parks in BLPOP on the empty list of
 * a database and is served, on the writer's thread before its reply, by whichever later command gives that
 * database's list data (a push, a SWAPDB, a MOVE): its pop is a write the watchers must see too. Every reply
 * is compared with the model's as RESP text.
 *
 * <p>The model states the server's WATCH contract: an EXEC answers a null array exactly when, since its
 * connection watched a key (in the logical database it was then in), a command that did not fail named that
 * key in that database (the transaction's own queued commands and other EXECs included), a FLUSHDB, FLUSHALL or
 * SWAPDB covered the database, a MOVE took the key out of or into it, or the deadline the key had when
 * watched has passed. Anything else must run the queued commands.
 */
class WatchModelProperties {

    private static final List<String> STRINGS = List.of("a", "b");
    private static final String LIST = "l";
    private static final int DATABASES = 2;

    /** The connection that parks in BLPOP ({@code PARK d}: in logical database d). */
    private static final int PARKER = 4;

    /** One command of one connection: 0 and 1 watch, 2 and 3 write, {@link #PARKER} blocks. */
    record Step(int actor, String[] command) {
        @Override
        public String toString() {
            return actor + ":" + String.join(" ", command);
        }
    }

    @Property(tries = 250)
    void execAbortsExactlyWhenTheModelSays(@ForAll("schedules") List<Step> steps) throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Model model = new Model(server.clock.get());
            Connection[] connections = new Connection[5];
            for (int i = 0; i < connections.length; i++) {
                connections[i] = new Connection(null, null, true);
            }
            ExpirySweeper sweeper = new ExpirySweeper(server.keyspace);
            ParkedReply parking = new ParkedReply();
            connections[PARKER].parking(parking);
            CompletableFuture<String> parked = null;
            int n = 0;
            try {
                for (Step step : steps) {
                    n++;
                    String[] c = step.command();
                    switch (c[0]) {
                        case "PARK" -> {
                            if (parked != null) {
                                // a parked connection takes no command until its reply is out
                                Statistics.label("PARK").collect("skipped");
                                break;
                            }
                            String select = server.callAs(connections[PARKER], "SELECT", c[1]);
                            assertEquals(model.run(PARKER, new String[] {"SELECT", c[1]}), select);
                            if (model.listHasData(PARKER)) {
                                Statistics.label("PARK").collect("skipped");
                                break;
                            }
                            parked = parking.next();
                            assertEquals("", server.callAs(connections[PARKER], "BLPOP", LIST, "0"),
                                    "a BLPOP on an empty list parks");
                            model.park();
                        }
                        case "TICK" -> {
                            long ms = Long.parseLong(c[1]);
                            server.clock.addAndGet(ms);
                            model.now += ms;
                        }
                        case "SWEEP" -> sweeper.sweep(1000);
                        case "SETRUN" -> {
                            SetCommandRun run = server.dispatcher.newSetRun();
                            String[] set = {"SET", c[1], c[2]};
                            String reply;
                            boolean joined = run.offer(connections[step.actor()], InProcessServer.bytes(set));
                            Statistics.label("SET run").collect(!joined ? "not joined"
                                    : model.sessions[step.actor()].database == 0 ? "joined in database 0"
                                    : "joined after SWAPDB");
                            if (joined) {
                                ByteBuf out = Unpooled.buffer();
                                run.commit(new Reply(out, 2));
                                reply = InProcessServer.text(out);
                            } else {
                                reply = server.callAs(connections[step.actor()], set);
                            }
                            assertEquals(model.run(step.actor(), set), reply, "step " + n + " " + step);
                        }
                        default -> {
                            String[] command = c[0].equals("BLPOP") && !model.listHasData(step.actor())
                                    ? new String[] {"LPOP", LIST} : c;
                            String expected = model.run(step.actor(), command);
                            assertEquals(expected, server.callAs(connections[step.actor()], command),
                                    "step " + n + " " + step + " of " + steps);
                            if (command[0].equals("EXEC") && !expected.startsWith("-")) {
                                Statistics.label("EXEC").collect(expected.equals("*-1\r\n") ? "aborted" : "ran");
                            }
                        }
                    }
                    String served = model.serveParked();
                    if (served != null) {
                        Statistics.label("PARK").collect("served by " + c[0]);
                        assertEquals(served, parked.getNow("not served"),
                                "the parked BLPOP, served by step " + n + " " + step + " of " + steps);
                        parked = null;
                    } else if (parked != null && parked.isDone()) {
                        throw new AssertionError("the parked BLPOP answered " + parked.join() + " at step " + n
                                + " " + step + ", where the model still waits, of " + steps);
                    }
                }
            } finally {
                if (parked != null) {
                    server.keyspace.blocking().unblockAll("UNBLOCKED the test is over");
                }
            }
        }
    }

    /** The parker's connection: a parked command's later reply completes the future {@link #next} handed out. */
    private static final class ParkedReply implements Parking {
        private volatile CompletableFuture<String> reply = new CompletableFuture<>();

        CompletableFuture<String> next() {
            reply = new CompletableFuture<>();
            return reply;
        }

        @Override
        public void park(Runnable onDisconnect) {
        }

        @Override
        public void resume(Consumer<Reply> write) {
            ByteBuf out = Unpooled.buffer();
            write.accept(new Reply(out, 2));
            reply.complete(InProcessServer.text(out));
        }

        @Override
        public Runnable schedule(Runnable task, long delayNanos) {
            return () -> { };
        }
    }

    /** A SET run after SWAPDB writes physical database 0, which is then logical database 1. */
    @Example
    void aSetRunAfterSwapdbMarksTheDatabaseItWrote() throws Exception {
        execAbortsExactlyWhenTheModelSays(List.of(new Step(2, new String[] {"SWAPDB", "0", "1"}),
                new Step(2, new String[] {"SELECT", "1"}), new Step(0, new String[] {"SELECT", "1"}),
                new Step(0, new String[] {"WATCH", "a"}), new Step(2, new String[] {"SETRUN", "a", "1"}),
                new Step(0, new String[] {"MULTI"}), new Step(0, new String[] {"EXEC"})));
    }

    @Provide
    Arbitrary<List<Step>> schedules() {
        Arbitrary<List<String[]>> watcher0 = rounds().list().ofMinSize(1).ofMaxSize(4).map(WatchModelProperties::flat);
        Arbitrary<List<String[]>> watcher1 = rounds().list().ofMinSize(1).ofMaxSize(4).map(WatchModelProperties::flat);
        Arbitrary<List<Step>> writers = Combinators.combine(Arbitraries.integers().between(2, 3), writerCommand())
                .as(Step::new).list().ofMinSize(5).ofMaxSize(40);
        Arbitrary<List<Integer>> picks = Arbitraries.integers().between(0, 2).list().ofSize(100);
        return Combinators.combine(watcher0, watcher1, writers, picks).as(WatchModelProperties::interleave);
    }

    /** The three scripts merged in the order {@code picks} chooses (a finished script is skipped). */
    private static List<Step> interleave(List<String[]> w0, List<String[]> w1, List<Step> writers, List<Integer> picks) {
        List<List<Step>> sources = List.of(
                w0.stream().map(c -> new Step(0, c)).toList(), w1.stream().map(c -> new Step(1, c)).toList(), writers);
        int[] next = new int[3];
        List<Step> merged = new ArrayList<>();
        int pick = 0;
        while (merged.size() < w0.size() + w1.size() + writers.size()) {
            int from = pick < picks.size() ? picks.get(pick++) : 0;
            while (next[from] == sources.get(from).size()) {
                from = (from + 1) % 3;
            }
            merged.add(sources.get(from).get(next[from]++));
        }
        return merged;
    }

    private static List<String[]> flat(List<List<String[]>> rounds) {
        List<String[]> all = new ArrayList<>();
        rounds.forEach(all::addAll);
        return all;
    }

    /** One watcher's transaction: maybe SELECT, WATCH keys, maybe UNWATCH, MULTI, queued commands, EXEC or DISCARD. */
    private static Arbitrary<List<String[]>> rounds() {
        Arbitrary<String[]> queued = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(new String[] {"PING"})),
                Tuple.of(3, stringKey().map(k -> new String[] {"INCR", k})),
                Tuple.of(1, database().map(d -> new String[] {"SELECT", d})),
                Tuple.of(1, Arbitraries.just(new String[] {"UNWATCH"})));
        return Combinators.combine(
                database().injectNull(0.5),
                key().list().ofMinSize(0).ofMaxSize(2),
                Arbitraries.integers().between(0, 9),
                queued.list().ofMinSize(0).ofMaxSize(3),
                Arbitraries.integers().between(0, 9)).as((select, watched, unwatch, commands, end) -> {
                    List<String[]> round = new ArrayList<>();
                    if (select != null) {
                        round.add(new String[] {"SELECT", select});
                    }
                    watched.forEach(k -> round.add(new String[] {"WATCH", k}));
                    if (unwatch == 0) {
                        round.add(new String[] {"UNWATCH"});
                    }
                    round.add(new String[] {"MULTI"});
                    round.addAll(commands);
                    round.add(new String[] {end == 0 ? "DISCARD" : "EXEC"});
                    return round;
                });
    }

    private static Arbitrary<String[]> writerCommand() {
        Arbitrary<String> number = Arbitraries.integers().between(0, 9).map(String::valueOf);
        return Arbitraries.frequencyOf(
                Tuple.of(3, Combinators.combine(stringKey(), number).as((k, v) -> new String[] {"SET", k, v})),
                Tuple.of(5, Combinators.combine(stringKey(), number).as((k, v) -> new String[] {"SETRUN", k, v})),
                Tuple.of(2, stringKey().map(k -> new String[] {"INCR", k})),
                Tuple.of(1, key().map(k -> new String[] {"DEL", k})),
                Tuple.of(2, Combinators.combine(key(), Arbitraries.of("1", "5", "50"))
                        .as((k, ms) -> new String[] {"PEXPIRE", k, ms})),
                Tuple.of(1, key().map(k -> new String[] {"PERSIST", k})),
                Tuple.of(2, number.map(v -> new String[] {"LPUSH", LIST, "x" + v})),
                Tuple.of(1, Arbitraries.just(new String[] {"LPOP", LIST})),
                Tuple.of(2, Arbitraries.just(new String[] {"BLPOP", LIST, "0"})),
                Tuple.of(3, Arbitraries.just(new String[] {"SWAPDB", "0", "1"})),
                Tuple.of(1, Arbitraries.just(new String[] {"FLUSHDB"})),
                Tuple.of(1, Arbitraries.just(new String[] {"FLUSHALL"})),
                Tuple.of(1, Combinators.combine(key(), database()).as((k, d) -> new String[] {"MOVE", k, d})),
                Tuple.of(4, database().map(d -> new String[] {"SELECT", d})),
                Tuple.of(2, Arbitraries.of("1", "5", "20").map(ms -> new String[] {"TICK", ms})),
                Tuple.of(1, Arbitraries.just(new String[] {"SWEEP"})),
                Tuple.of(2, database().map(d -> new String[] {"PARK", d})));
    }

    private static Arbitrary<String> key() {
        return Arbitraries.of("a", "b", LIST);
    }

    private static Arbitrary<String> stringKey() {
        return Arbitraries.of(STRINGS);
    }

    private static Arbitrary<String> database() {
        return Arbitraries.integers().between(0, DATABASES - 1).map(String::valueOf);
    }

    /** A key's value: a number (strings) or a list, and its deadline (0: none). */
    private static final class Value {
        Long number;
        ArrayDeque<String> list;
        long expireAt;

        Value copy() {
            Value v = new Value();
            v.number = number;
            v.list = list == null ? null : new ArrayDeque<>(list);
            v.expireAt = expireAt;
            return v;
        }
    }

    /** A watched key: logical database and name. */
    private record Watched(int database, String key) {
    }

    /** One connection's session: database, MULTI queue, watched keys with their deadlines, dirty mark. */
    private static final class Session {
        int database;
        List<String[]> queued;
        final Map<Watched, Long> watched = new LinkedHashMap<>();
        boolean dirty;
    }

    private static final class Model {
        final List<Map<String, Value>> databases = new ArrayList<>();
        final Session[] sessions = new Session[5];
        long now;
        /** The logical database the parked BLPOP waits in; -1 while none is parked. */
        int parkedDatabase = -1;

        Model(long now) {
            this.now = now;
            for (int i = 0; i < DATABASES; i++) {
                databases.add(new HashMap<>());
            }
            for (int i = 0; i < sessions.length; i++) {
                sessions[i] = new Session();
            }
        }

        void park() {
            parkedDatabase = sessions[PARKER].database;
        }

        /**
         * The parked BLPOP's reply once the list of its database has data (it then pops the head, a write of
         * that key), else null. Blocked clients stay in the database number they chose, so a SWAPDB that
         * brings data there, or a MOVE of a list into it, serves them as a push does.
         */
        String serveParked() {
            if (parkedDatabase < 0) {
                return null;
            }
            int d = parkedDatabase;
            Value v = live(d, LIST);
            if (v == null) {
                return null;
            }
            parkedDatabase = -1;
            String head = v.list.removeFirst();
            if (v.list.isEmpty()) {
                databases.get(d).remove(LIST);
            }
            touch(d, LIST);
            return "*2\r\n$1\r\n" + LIST + "\r\n$" + head.length() + "\r\n" + head + "\r\n";
        }

        boolean listHasData(int actor) {
            Value v = live(sessions[actor].database, LIST);
            return v != null && v.list != null && !v.list.isEmpty();
        }

        Value live(int database, String key) {
            Value v = databases.get(database).get(key);
            if (v != null && v.expireAt != 0 && v.expireAt <= now) {
                databases.get(database).remove(key);
                return null;
            }
            return v;
        }

        void touch(int database, String key) {
            for (Session s : sessions) {
                if (s.watched.containsKey(new Watched(database, key))) {
                    s.dirty = true;
                }
            }
        }

        void touchDatabase(int database) {
            for (Session s : sessions) {
                for (Watched w : s.watched.keySet()) {
                    if (database < 0 || w.database() == database) {
                        s.dirty = true;
                    }
                }
            }
        }

        /** The reply the server must give to {@code command} of connection {@code actor}, and its effects. */
        String run(int actor, String[] command) {
            Session s = sessions[actor];
            String name = command[0];
            if (s.queued != null && !List.of("EXEC", "DISCARD", "MULTI", "WATCH").contains(name)) {
                s.queued.add(command);
                return "+QUEUED\r\n";
            }
            switch (name) {
                case "MULTI" -> {
                    if (s.queued != null) {
                        return "-ERR MULTI calls can not be nested\r\n";
                    }
                    s.queued = new ArrayList<>();
                    return "+OK\r\n";
                }
                case "WATCH" -> {
                    if (s.queued != null) {
                        return "-ERR WATCH inside MULTI is not allowed\r\n";
                    }
                    Value v = live(s.database, command[1]);
                    s.watched.putIfAbsent(new Watched(s.database, command[1]), v == null ? 0 : v.expireAt);
                    return "+OK\r\n";
                }
                case "UNWATCH" -> {
                    unwatch(s);
                    return "+OK\r\n";
                }
                case "DISCARD" -> {
                    if (s.queued == null) {
                        return "-ERR DISCARD without MULTI\r\n";
                    }
                    s.queued = null;
                    unwatch(s);
                    return "+OK\r\n";
                }
                case "EXEC" -> {
                    if (s.queued == null) {
                        return "-ERR EXEC without MULTI\r\n";
                    }
                    List<String[]> queued = s.queued;
                    s.queued = null;
                    boolean abort = s.dirty || s.watched.values().stream().anyMatch(at -> at != 0 && at <= now);
                    unwatch(s);
                    if (abort) {
                        return "*-1\r\n";
                    }
                    StringBuilder replies = new StringBuilder("*" + queued.size() + "\r\n");
                    for (String[] c : queued) {
                        replies.append(run(actor, c));
                    }
                    return replies.toString();
                }
                default -> {
                    return write(s, command);
                }
            }
        }

        private void unwatch(Session s) {
            s.watched.clear();
            s.dirty = false;
        }

        /** Commands outside MULTI's own: they touch the key they name unless they fail. */
        private String write(Session s, String[] c) {
            int d = s.database;
            Map<String, Value> db = databases.get(d);
            switch (c[0]) {
                case "PING" -> {
                    return "+PONG\r\n";
                }
                case "SELECT" -> {
                    s.database = Integer.parseInt(c[1]);
                    return "+OK\r\n";
                }
                case "SET" -> {
                    Value v = new Value();
                    v.number = Long.parseLong(c[2]);
                    db.put(c[1], v);
                    touch(d, c[1]);
                    return "+OK\r\n";
                }
                case "INCR" -> {
                    Value v = live(d, c[1]);
                    if (v == null) {
                        v = new Value();
                        v.number = 0L;
                        db.put(c[1], v);
                    }
                    v.number++;
                    touch(d, c[1]);
                    return ":" + v.number + "\r\n";
                }
                case "DEL" -> {
                    boolean existed = live(d, c[1]) != null;
                    db.remove(c[1]);
                    touch(d, c[1]);
                    return ":" + (existed ? 1 : 0) + "\r\n";
                }
                case "PEXPIRE" -> {
                    Value v = live(d, c[1]);
                    touch(d, c[1]);
                    if (v == null) {
                        return ":0\r\n";
                    }
                    v.expireAt = now + Long.parseLong(c[2]);
                    return ":1\r\n";
                }
                case "PERSIST" -> {
                    Value v = live(d, c[1]);
                    touch(d, c[1]);
                    if (v == null || v.expireAt == 0) {
                        return ":0\r\n";
                    }
                    v.expireAt = 0;
                    return ":1\r\n";
                }
                case "LPUSH" -> {
                    Value v = live(d, LIST);
                    if (v == null) {
                        v = new Value();
                        v.list = new ArrayDeque<>();
                        db.put(LIST, v);
                    }
                    v.list.addFirst(c[2]);
                    touch(d, LIST);
                    return ":" + v.list.size() + "\r\n";
                }
                case "LPOP", "BLPOP" -> {
                    Value v = live(d, LIST);
                    touch(d, LIST);
                    if (v == null) {
                        return "$-1\r\n";
                    }
                    String head = v.list.removeFirst();
                    if (v.list.isEmpty()) {
                        db.remove(LIST);
                    }
                    String bulk = "$" + head.length() + "\r\n" + head + "\r\n";
                    return c[0].equals("LPOP") ? bulk : "*2\r\n$1\r\n" + LIST + "\r\n" + bulk;
                }
                case "SWAPDB" -> {
                    int x = Integer.parseInt(c[1]);
                    int y = Integer.parseInt(c[2]);
                    if (x != y) {
                        Map<String, Value> t = databases.get(x);
                        databases.set(x, databases.get(y));
                        databases.set(y, t);
                        touchDatabase(x);
                        touchDatabase(y);
                    }
                    return "+OK\r\n";
                }
                case "FLUSHDB" -> {
                    db.clear();
                    touchDatabase(d);
                    return "+OK\r\n";
                }
                case "FLUSHALL" -> {
                    databases.forEach(Map::clear);
                    touchDatabase(-1);
                    return "+OK\r\n";
                }
                case "MOVE" -> {
                    int target = Integer.parseInt(c[2]);
                    if (target == d) {
                        return "-ERR source and destination objects are the same\r\n";
                    }
                    touch(d, c[1]);
                    touch(target, c[1]);
                    Value v = live(d, c[1]);
                    if (v == null || live(target, c[1]) != null) {
                        return ":0\r\n";
                    }
                    db.remove(c[1]);
                    databases.get(target).put(c[1], v.copy());
                    return ":1\r\n";
                }
                default -> throw new IllegalArgumentException("not modelled: " + c[0]);
            }
        }
    }
}
