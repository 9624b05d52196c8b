package io.varve.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Writes whose keys follow a count (LMPOP, ZMPOP and their blocking forms) invalidate a WATCH on those keys,
 * as every write does: the keys are found through the command's key specs.
 */
class WatchKeySpecTest extends OneServerPerClass {

    @Test
    void lmpopInvalidatesAWatch() throws IOException {
        assertWatchBroken("RPUSH", List.of("k", "a", "b"), "LMPOP", "1", "k", "LEFT");
    }

    @Test
    void blmpopInvalidatesAWatch() throws IOException {
        assertWatchBroken("RPUSH", List.of("k", "a", "b"), "BLMPOP", "0", "1", "k", "LEFT");
    }

    @Test
    void zmpopInvalidatesAWatch() throws IOException {
        assertWatchBroken("ZADD", List.of("k", "1", "a", "2", "b"), "ZMPOP", "1", "k", "MIN");
    }

    @Test
    void bzmpopInvalidatesAWatch() throws IOException {
        assertWatchBroken("ZADD", List.of("k", "1", "a", "2", "b"), "BZMPOP", "0", "1", "k", "MIN");
    }

    @Test
    void anMpopOfAnotherKeyLeavesTheWatchAlone() throws IOException {
        try (RespClient watcher = RespClient.connect(server.port());
             RespClient writer = RespClient.connect(server.port())) {
            writer.call("FLUSHALL");
            writer.call("RPUSH", "other", "a");
            assertEquals("OK", watcher.call("WATCH", "k"));
            assertEquals(List.of("other", List.of("a")), writer.call("LMPOP", "1", "other", "LEFT"));
            assertEquals("OK", watcher.call("MULTI"));
            watcher.call("GET", "x");
            assertEquals(java.util.Collections.singletonList(null), watcher.call("EXEC"));
        }
    }

    private void assertWatchBroken(String fill, List<String> fillArgs, String... write) throws IOException {
        try (RespClient watcher = RespClient.connect(server.port());
             RespClient writer = RespClient.connect(server.port())) {
            writer.call("FLUSHALL");
            String[] fillCall = new String[fillArgs.size() + 1];
            fillCall[0] = fill;
            for (int i = 0; i < fillArgs.size(); i++) {
                fillCall[i + 1] = fillArgs.get(i);
            }
            writer.call(fillCall);
            assertEquals("OK", watcher.call("WATCH", "k"));
            Object popped = writer.call(write);
            assertEquals("k", ((List<?>) popped).getFirst(), "the write popped from k");
            assertEquals("OK", watcher.call("MULTI"));
            assertEquals("QUEUED", watcher.call("GET", "x"));
            assertNull(watcher.call("EXEC"), write[0] + " wrote k after WATCH: EXEC must abort");
        }
    }
}
