package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FUNCTION STATS names the running function and the whole command that started it, as Redis 7 does. */
class FunctionStatsTest {

    @Test
    void runningScriptShowsTheInvokingCommand() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            server.call("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('spin', function() while true do end end)");
            Connection runner = new Connection(null, null, true);
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> server.callAs(runner, "FCALL", "spin", "0"));
            String answer;
            do {
                answer = server.call("GET", "k");
            } while (!answer.startsWith("-BUSY"));
            String stats = server.call("FUNCTION", "STATS");
            assertTrue(stats.contains("$4\r\nname\r\n$4\r\nspin\r\n$7\r\ncommand\r\n*3\r\n$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n0\r\n"),
                    stats);
            assertEquals("+OK\r\n", server.call("FUNCTION", "KILL"));
            assertTrue(call.get(10, TimeUnit.SECONDS).startsWith("-ERR Script killed"));
        }
    }
}
