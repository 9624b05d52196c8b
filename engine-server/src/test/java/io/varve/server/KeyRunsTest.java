package io.varve.server;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's pipelined writes to one key, run together by its drainer (KeyCommandRun), through the
 * network: INFO's {@code total_writes_committed_in_key_runs} counts them, and a client blocked on the key is
 * served exactly as if the writes had run one by one.
 */
class KeyRunsTest extends OneServerPerClass {

    private static byte[] pipeline(String[]... commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String[] command : commands) {
            out.writeBytes(RespClient.encode(command));
        }
        return out.toByteArray();
    }

    @Test
    void pipelinedWritesToOneKeyRunTogetherAndTheNextCommandSeesThemAll() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            long before = c.infoStat("total_writes_committed_in_key_runs");
            c.sendRaw(pipeline(new String[] {"RPUSH", "run:list", "a"}, new String[] {"RPUSH", "run:list", "b"},
                    new String[] {"SADD", "run:list", "x"}, new String[] {"RPUSH", "run:list", "c"},
                    new String[] {"LRANGE", "run:list", "0", "-1"}));
            assertEquals(1L, c.read());
            assertEquals(2L, c.read());
            assertTrue(((RespClient.Err) c.read()).text().startsWith("WRONGTYPE"));
            assertEquals(3L, c.read());
            assertEquals(List.of("a", "b", "c"), c.read());
            assertTrue(c.infoStat("total_writes_committed_in_key_runs") > before, "no run of writes to one key");
        }
    }

    /**
     * One by one, a client blocked on the key is served by the first push, between the pushes, and takes the
     * first element; a run would serve it only after the last push. So a key with a blocked client is written
     * one by one.
     */
    @Test
    void aClientBlockedOnTheKeyIsServedAsIfThePushesRanOneByOne() throws Exception {
        try (RespClient blocked = RespClient.connect(server.port()); RespClient pusher = RespClient.connect(server.port())) {
            blocked.send("BLPOP", "run:blocked", "0");
            assertTrue(server.server.keyspace().blocking()
                    .awaitWaiting("run:blocked".getBytes(StandardCharsets.UTF_8), 1, 60_000), "BLPOP waits");
            pusher.sendRaw(pipeline(new String[] {"LPUSH", "run:blocked", "a"},
                    new String[] {"LPUSH", "run:blocked", "b"}, new String[] {"LPUSH", "run:blocked", "c"}));
            assertEquals(1L, pusher.read());
            assertEquals(1L, pusher.read(), "the first element went to the blocked client");
            assertEquals(2L, pusher.read());
            assertEquals(List.of("run:blocked", "a"), blocked.read());
            assertEquals(List.of("c", "b"), pusher.call("LRANGE", "run:blocked", "0", "-1"));
        }
    }
}
