package io.varve.server.command;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random MULTI/EXEC sessions of two connections against a model map: commands queued with errors before EXEC
 * (EXECABORT, nothing applied), runtime errors inside EXEC (the others applied), DISCARD, and WATCH with the
 * other connection writing a watched key or not (null array, nothing applied). Every reply is compared as
 * RESP text, and the final state key by key.
 */
class TransactionProperties {

    private static final List<String> KEYS = List.of("a", "b", "c");
    private static final String ABORT = "-EXECABORT Transaction discarded because of previous errors.\r\n";

    /** One step: the other connection's write (or nothing), then a transaction of this connection. */
    record Step(String[] otherWrite, List<String> watched, List<String[]> queued, boolean discard) {
    }

    @Property(tries = 200)
    void transactionsMatchTheModel(@ForAll("steps") List<Step> steps) throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection other = new Connection(null, null, true);
            Map<String, String> model = new HashMap<>();
            for (Step step : steps) {
                for (String key : step.watched()) {
                    assertEquals("+OK\r\n", server.call("WATCH", key));
                }
                boolean dirty = false;
                if (step.otherWrite() != null) {
                    String reply = server.callAs(other, step.otherWrite());
                    assertEquals(apply(model, step.otherWrite()), reply, "other connection's write");
                    dirty = !reply.startsWith("-") && step.watched().contains(step.otherWrite()[1]);
                }
                assertEquals("+OK\r\n", server.call("MULTI"));
                boolean queueError = false;
                for (String[] command : step.queued()) {
                    String reply = server.call(command);
                    String refusal = refusalWhileQueued(command);
                    assertEquals(refusal != null ? refusal : "+QUEUED\r\n", reply, String.join(" ", command));
                    queueError |= refusal != null;
                }
                if (step.discard()) {
                    assertEquals("+OK\r\n", server.call("DISCARD"));
                    continue;
                }
                String exec = server.call("EXEC");
                if (queueError) {
                    assertEquals(ABORT, exec);
                } else if (dirty) {
                    assertEquals("*-1\r\n", exec);
                } else {
                    StringBuilder expected = new StringBuilder("*" + step.queued().size() + "\r\n");
                    for (String[] command : step.queued()) {
                        expected.append(apply(model, command));
                    }
                    assertEquals(expected.toString(), exec);
                }
                assertEquals("-ERR EXEC without MULTI\r\n", server.call("EXEC"), "the transaction ended");
            }
            for (String key : KEYS) {
                String value = model.get(key);
                assertEquals(value == null ? "$-1\r\n" : "$" + value.length() + "\r\n" + value + "\r\n",
                        server.call("GET", key), key);
            }
        }
    }

    /** The error a command gets when queued, or null if it is queued. */
    private static String refusalWhileQueued(String[] command) {
        if (command[0].equals("NOSUCH")) {
            return "-ERR unknown command 'NOSUCH', with args beginning with: " + (command.length > 1 ? "'" + command[1] + "' " : "") + "\r\n";
        }
        if (command[0].equals("GET") && command.length != 2) {
            return "-ERR wrong number of arguments for 'get' command\r\n";
        }
        return null;
    }

    /** The model: applies a valid command and returns its RESP2 reply. */
    private static String apply(Map<String, String> model, String[] c) {
        String key = c[1];
        return switch (c[0]) {
            case "SET" -> {
                model.put(key, c[2]);
                yield "+OK\r\n";
            }
            case "GET" -> bulk(model.get(key));
            case "DEL" -> ":" + (model.remove(key) == null ? 0 : 1) + "\r\n";
            case "APPEND" -> {
                String v = model.getOrDefault(key, "") + c[2];
                model.put(key, v);
                yield ":" + v.length() + "\r\n";
            }
            case "INCR" -> {
                String v = model.getOrDefault(key, "0");
                Long parsed = redisInteger(v);
                if (parsed == null) {
                    yield "-ERR value is not an integer or out of range\r\n";
                }
                long n = parsed;
                model.put(key, Long.toString(n + 1));
                yield ":" + (n + 1) + "\r\n";
            }
            default -> throw new IllegalArgumentException(c[0]);
        };
    }

    /**
     * Redis's reading of a string as an integer: no leading zeros, no "+", no "-0" (APPEND can build "01",
     * which Java's parser would take as 1).
     */
    private static Long redisInteger(String v) {
        if (!v.matches("0|-?[1-9][0-9]*")) {
            return null;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String bulk(String v) {
        return v == null ? "$-1\r\n" : "$" + v.length() + "\r\n" + v + "\r\n";
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of("1", "v", "10", "-3");
        Arbitrary<String[]> write = Arbitraries.oneOf(
                Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v}),
                key.map(k -> new String[] {"INCR", k}),
                key.map(k -> new String[] {"DEL", k}),
                Combinators.combine(key, value).as((k, v) -> new String[] {"APPEND", k, v}));
        Arbitrary<String[]> queued = Arbitraries.frequencyOf(
                Tuple.of(12, write),
                Tuple.of(4, key.map(k -> new String[] {"GET", k})),
                Tuple.of(1, key.map(k -> new String[] {"NOSUCH", k})),
                Tuple.of(1, key.map(k -> new String[] {"GET", k, k})));
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.frequencyOf(Tuple.of(1, write), Tuple.of(1, Arbitraries.just((String[]) null))),
                key.list().ofMaxSize(2),
                queued.list().ofMaxSize(6),
                Arbitraries.integers().between(0, 9).map(i -> i == 0)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(12).map(ArrayList::new);
    }
}
