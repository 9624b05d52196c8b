package io.varve.server;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GETs answered on the event loop from the engine's memory (ClientSession's inline path): the same replies as the
 * drainer gives, in request order, also when a pipeline mixes them with GETs of keys in tables and with
 * writes. INFO's {@code total_reads_answered_inline} tells which path ran.
 */
class InlineGetTest extends OneServerPerClass {

    private long inlineReads(RespClient c) throws IOException {
        return c.infoStat("total_reads_answered_inline");
    }

    private static byte[] pipeline(List<String[]> commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        commands.forEach(command -> out.writeBytes(RespClient.encode(command)));
        return out.toByteArray();
    }

    @Test
    void getsTheMemtablesDecideAreAnsweredInlineWithTheUsualReplies() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "in:expired", "x", "PX", "100");
            server.advance(Duration.ofSeconds(1));
            c.call("SET", "in:deleted", "x");
            c.call("DEL", "in:deleted");
            c.call("HSET", "in:hash", "f", "v");
            List<String[]> gets = new ArrayList<>();
            List<Object> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                c.call("SET", "in:" + i, "v" + i);
                gets.add(new String[] {"GET", "in:" + i});
                expected.add("v" + i);
                if (i % 10 == 0) {
                    gets.add(new String[] {"get", "in:expired"});
                    expected.add(null);
                    gets.add(new String[] {"GET", "in:deleted"});
                    expected.add(null);
                    gets.add(new String[] {"GET", "in:hash"});
                    expected.add(new RespClient.Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
                }
            }
            long before = inlineReads(c);
            c.sendRaw(pipeline(gets));
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), c.read(), "reply " + i);
            }
            // However the socket split the pipeline, every GET met an idle connection and a deciding memtable.
            assertEquals(expected.size(), inlineReads(c) - before);
        }
    }

    @Test
    void aGetThatNeedsATableFileHandsItselfAndEverythingAfterItToTheDrainerInOrder() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            // Random (incompressible) values: their table block is stored uncompressed, so it never enters
            // the block cache and GETs of these keys always need the table file, hence the drainer.
            java.util.Random random = new java.util.Random(7);
            String[] old = new String[20];
            for (int i = 0; i < 20; i++) {
                byte[] bytes = new byte[300];
                random.nextBytes(bytes);
                old[i] = java.util.Base64.getEncoder().encodeToString(bytes);
                c.call("SET", "tab:" + i, old[i]);
            }
            server.server.db().flush();
            c.call("SET", "mem:a", "A");
            for (int round = 0; round < 50; round++) {
                List<String[]> commands = new ArrayList<>();
                List<Object> expected = new ArrayList<>();
                commands.add(new String[] {"GET", "mem:a"});
                expected.add(round == 0 ? "A" : "A" + (round - 1));
                commands.add(new String[] {"GET", "tab:" + round % 20});
                expected.add(old[round % 20]);
                commands.add(new String[] {"GET", "mem:a"});
                expected.add(round == 0 ? "A" : "A" + (round - 1));
                commands.add(new String[] {"SET", "mem:a", "A" + round});
                expected.add("OK");
                commands.add(new String[] {"GET", "mem:a"});
                expected.add("A" + round);
                commands.add(new String[] {"GET", "nowhere"});
                expected.add(null);
                long before = inlineReads(c);
                c.sendRaw(pipeline(commands));
                for (int i = 0; i < expected.size(); i++) {
                    assertEquals(expected.get(i), c.read(), "round " + round + ", reply " + i);
                }
                // The head GET meets an idle connection, so it is answered inline. (What follows the table
                // read may be too, if the socket split the pipeline after the drainer wrote its replies.)
                assertTrue(inlineReads(c) - before >= 1, "round " + round + ": head GET answered inline");
            }
        }
    }

    @Test
    void getsOfEveryDatabaseAreAnsweredInlineFromTheDatabaseSelected() throws Exception {
        try (RespClient c = RespClient.connect(server.port()); RespClient other = RespClient.connect(server.port())) {
            c.call("SET", "db:k", "zero");
            c.call("SELECT", "7");
            c.call("SET", "db:k", "seven");
            c.call("SET", "db:only7", "x");
            long before = inlineReads(c);
            c.sendRaw(pipeline(List.of(new String[] {"GET", "db:k"}, new String[] {"GET", "db:only7"})));
            assertEquals("seven", c.read());
            assertEquals("x", c.read());
            assertEquals(2, inlineReads(c) - before);
            other.call("SWAPDB", "7", "0");
            before = inlineReads(c);
            c.sendRaw(pipeline(List.of(new String[] {"GET", "db:k"}, new String[] {"GET", "db:only7"})));
            assertEquals("zero", c.read(), "SWAPDB moved database 0's keys under the number this connection selected");
            assertEquals(null, c.read());
            assertEquals(2, inlineReads(c) - before);
            other.call("SWAPDB", "7", "0");
        }
    }
}
