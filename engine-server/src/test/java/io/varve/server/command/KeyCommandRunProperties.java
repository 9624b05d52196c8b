package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A pipeline run the way a connection's drainer runs it — consecutive writes to one key taken into a
 * {@link KeyCommandRun} and run together, plain SETs into a {@link SetCommandRun}, everything else alone after
 * the runs before it are committed — gives exactly the replies and the final state of running the same
 * commands one at a time. The commands mix every type's single-key writes and reads on three keys, so runs
 * meet wrong types, syntax and range errors, and SELECT moves the pipeline between two databases.
 */
class KeyCommandRunProperties {

    private static final List<String> KEYS = List.of("a", "b", "c");

    @Property(tries = 200)
    void runsOfWritesToOneKeyEqualOneByOne(@ForAll("pipelines") List<String[]> pipeline) throws Exception {
        try (InProcessServer grouped = new InProcessServer(); InProcessServer single = new InProcessServer()) {
            ByteBuf out = Unpooled.buffer();
            Reply reply = new Reply(out, 2);
            AtomicLong together = new AtomicLong();
            KeyCommandRun keyRun = grouped.dispatcher.newKeyRun(together::addAndGet);
            SetCommandRun sets = grouped.dispatcher.newSetRun();
            List<String> expected = new ArrayList<>();
            for (String[] command : pipeline) {
                byte[][] args = InProcessServer.bytes(command);
                // The drainer's order (ClientSession): at most one of the two runs holds requests at a time.
                if (keyRun.isEmpty() || !keyRun.offer(grouped.connection, args)) {
                    keyRun.commit(reply);
                    if (!sets.offer(grouped.connection, args)) {
                        sets.commit(reply);
                        if (!keyRun.offer(grouped.connection, args)) {
                            grouped.dispatcher.execute(grouped.connection, args, reply);
                        }
                    }
                }
                expected.add(normalized(command, replyOf(single, command)));
            }
            sets.commit(reply);
            keyRun.commit(reply);
            byte[] all = ByteBufUtil.getBytes(out);
            out.release();
            List<byte[]> frames = frames(all);
            assertEquals(pipeline.size(), frames.size(), "one reply per command");
            List<String> actual = new ArrayList<>();
            for (int i = 0; i < frames.size(); i++) {
                actual.add(normalized(pipeline.get(i), frames.get(i)));
            }
            assertEquals(expected, actual, "replies");
            assertEquals(state(single), state(grouped), "final state");
        }
    }

    private static byte[] replyOf(InProcessServer s, String[] command) {
        ByteBuf out = Unpooled.buffer();
        try {
            s.dispatcher.execute(s.connection, InProcessServer.bytes(command), new Reply(out, 2));
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    /** A reply as comparable text: SPOP with a count replies in random order, so its members are sorted. */
    @SuppressWarnings("unchecked")
    private static String normalized(String[] command, byte[] reply) {
        String text = new String(reply, StandardCharsets.ISO_8859_1);
        if (command[0].equals("SPOP") && command.length == 3 && text.startsWith("*")) {
            List<String> members = new ArrayList<>((List<String>) RespText.parse(text));
            members.sort(null);
            return members.toString();
        }
        return text;
    }

    /** Splits RESP2 replies (bulk lengths in bytes) into one byte array per reply. */
    private static List<byte[]> frames(byte[] all) {
        List<byte[]> frames = new ArrayList<>();
        int[] at = {0};
        while (at[0] < all.length) {
            int start = at[0];
            skipValue(all, at);
            frames.add(java.util.Arrays.copyOfRange(all, start, at[0]));
        }
        return frames;
    }

    private static void skipValue(byte[] b, int[] at) {
        byte type = b[at[0]];
        int lineEnd = at[0];
        while (b[lineEnd] != '\r') {
            lineEnd++;
        }
        long n = type == '$' || type == '*'
                ? Long.parseLong(new String(b, at[0] + 1, lineEnd - at[0] - 1, StandardCharsets.US_ASCII)) : 0;
        at[0] = lineEnd + 2;
        if (type == '$' && n >= 0) {
            at[0] += (int) n + 2;
        } else if (type == '*') {
            for (long i = 0; i < n; i++) {
                skipValue(b, at);
            }
        }
    }

    private static String state(InProcessServer s) {
        StringBuilder b = new StringBuilder();
        for (String db : List.of("0", "1")) {
            b.append(text(s, "SELECT", db));
            for (String k : KEYS) {
                b.append(text(s, "TYPE", k)).append(text(s, "PTTL", k));
                b.append(text(s, "XRANGE", k, "-", "+")).append(text(s, "XPENDING", k, "g"));
                b.append(text(s, "XINFO", "GROUPS", k));
                b.append(text(s, "DUMP", k)); // strings, HyperLogLogs and collections; streams answer an error
            }
        }
        return b.toString();
    }

    private static String text(InProcessServer s, String... command) {
        return new String(replyOf(s, command), StandardCharsets.ISO_8859_1);
    }

    /** Bursts of commands on one key, so runs of many writes to a key are common. */
    @Provide
    Arbitrary<List<String[]>> pipelines() {
        Arbitrary<List<String[]>> burst = Arbitraries.of(KEYS)
                .flatMap(k -> commandOn(Arbitraries.just(k)).list().ofMinSize(1).ofMaxSize(8));
        return burst.list().ofMinSize(1).ofMaxSize(8)
                .map(bursts -> bursts.stream().flatMap(List::stream).toList());
    }

    private static Arbitrary<String[]> commandOn(Arbitrary<String> key) {
        Arbitrary<String> value = Arbitraries.of("1", "v", "10", "-2", "x");
        Arbitrary<String> score = Arbitraries.of("1", "2.5", "-3", "nan", "inf");
        Arbitrary<String> id = Arbitraries.of("1700000000000-0", "1700000000000-1", "1-1", "0-1");
        return Arbitraries.frequencyOf(
                // strings
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "NX"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "BOGUS"})),
                Tuple.of(3, key.map(k -> new String[] {"INCR", k})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"INCRBY", k, v})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"APPEND", k, v})),
                Tuple.of(1, key.map(k -> new String[] {"GETDEL", k})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"MSET", k, v})),
                Tuple.of(2, key.map(k -> new String[] {"GET", k})),
                // lists
                Tuple.of(4, Combinators.combine(key, value).as((k, v) -> new String[] {"LPUSH", k, v})),
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"RPUSH", k, v, v + "2"})),
                Tuple.of(2, key.map(k -> new String[] {"LPOP", k})),
                Tuple.of(1, key.map(k -> new String[] {"RPOP", k, "2"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"LSET", k, "0", v})),
                Tuple.of(1, key.map(k -> new String[] {"LTRIM", k, "0", "2"})),
                Tuple.of(1, key.map(k -> new String[] {"LPUSH", k})),
                Tuple.of(1, key.map(k -> new String[] {"LRANGE", k, "0", "-1"})),
                // sets
                Tuple.of(3, Combinators.combine(key, value).as((k, v) -> new String[] {"SADD", k, v, "m"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SREM", k, v})),
                Tuple.of(1, key.map(k -> new String[] {"SPOP", k, "100"})),
                Tuple.of(1, key.map(k -> new String[] {"SCARD", k})),
                // sorted sets
                Tuple.of(3, Combinators.combine(key, score, value).as((k, s, v) -> new String[] {"ZADD", k, s, v})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"ZINCRBY", k, "2", v})),
                Tuple.of(1, key.map(k -> new String[] {"ZPOPMIN", k})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"ZREM", k, v})),
                Tuple.of(1, key.map(k -> new String[] {"ZRANGE", k, "0", "-1", "WITHSCORES"})),
                // hashes
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"HSET", k, "f", v})),
                Tuple.of(1, key.map(k -> new String[] {"HINCRBY", k, "n", "3"})),
                Tuple.of(1, key.map(k -> new String[] {"HDEL", k, "f"})),
                Tuple.of(1, key.map(k -> new String[] {"HGETALL", k})),
                // streams
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"XADD", k, "*", "f", v})),
                Tuple.of(1, Combinators.combine(key, id).as((k, i) -> new String[] {"XADD", k, i, "f", "v"})),
                Tuple.of(1, key.map(k -> new String[] {"XADD", k, "MAXLEN", "2", "*", "f", "v"})),
                Tuple.of(1, Combinators.combine(key, id).as((k, i) -> new String[] {"XDEL", k, i})),
                Tuple.of(1, Combinators.combine(key, id).as((k, i) -> new String[] {"XACK", k, "g", i})),
                Tuple.of(1, key.map(k -> new String[] {"XGROUP", "CREATE", k, "g", "0", "MKSTREAM"})),
                Tuple.of(1, key.map(k -> new String[] {"XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", k, ">"})),
                // HyperLogLog
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"PFADD", k, v, "y"})),
                Tuple.of(1, key.map(k -> new String[] {"PFCOUNT", k})),
                // keys
                Tuple.of(1, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(1, key.map(k -> new String[] {"EXPIRE", k, "100"})),
                Tuple.of(1, key.map(k -> new String[] {"EXPIRE", k, "0"})),
                Tuple.of(1, Arbitraries.of("0", "1").map(db -> new String[] {"SELECT", db})));
    }
}
