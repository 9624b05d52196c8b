package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A pipeline run the way a connection's drainer runs it — plain SETs grouped into {@link SetCommandRun}s, every
 * other command executed alone after the run before it is committed — gives exactly the replies and the
 * final state of running the same commands one at a time.
 */
class SetCommandRunProperties {

    private static final List<String> KEYS = List.of("a", "b", "c", "d");

    @Property(tries = 150)
    void groupedPipelineEqualsOneByOne(@ForAll("pipelines") List<String[]> pipeline) throws Exception {
        try (InProcessServer grouped = new InProcessServer(); InProcessServer single = new InProcessServer()) {
            ByteBuf out = Unpooled.buffer();
            Reply reply = new Reply(out, 2);
            SetCommandRun run = grouped.dispatcher.newSetRun();
            StringBuilder expected = new StringBuilder();
            for (String[] command : pipeline) {
                byte[][] args = InProcessServer.bytes(command);
                if (!run.offer(grouped.connection, args)) {
                    run.commit(reply);
                    grouped.dispatcher.execute(grouped.connection, args, reply);
                }
                expected.append(single.call(command));
            }
            run.commit(reply);
            assertEquals(expected.toString(), InProcessServer.text(out), "replies");
            assertEquals(state(single), state(grouped), "final state");
        }
    }

    private static String state(InProcessServer s) {
        StringBuilder b = new StringBuilder();
        for (String k : KEYS) {
            b.append(s.call("TYPE", k)).append(s.call("PTTL", k)).append(s.call("GET", k)).append(s.call("HGETALL", k));
        }
        return b.toString();
    }

    @Provide
    Arbitrary<List<String[]>> pipelines() {
        Arbitrary<String> key = Arbitraries.of(KEYS);
        Arbitrary<String> value = Arbitraries.of("1", "v", "10", "");
        Arbitrary<String[]> command = Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v})),
                Tuple.of(2, Combinators.combine(key, value).as((k, v) -> new String[] {"set", k, v, "EX", "100"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "PXAT", "1"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "NX"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "GET"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "KEEPTTL"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "EX", "0"})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"SET", k, v, "BOGUS"})),
                Tuple.of(1, key.map(k -> new String[] {"SET", k})),
                Tuple.of(4, key.map(k -> new String[] {"GET", k})),
                Tuple.of(2, key.map(k -> new String[] {"INCR", k})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"APPEND", k, v})),
                Tuple.of(1, key.map(k -> new String[] {"DEL", k})),
                Tuple.of(1, Combinators.combine(key, value).as((k, v) -> new String[] {"HSET", k, "f", v})),
                Tuple.of(1, Combinators.combine(key, key).as((k, v) -> new String[] {"MSET", k, "m", v, "n"})));
        return command.list().ofMinSize(1).ofMaxSize(40);
    }
}
