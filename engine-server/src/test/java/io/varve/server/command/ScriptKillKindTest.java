package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FUNCTION KILL does not stop a script run by EVAL: it answers Redis's BUSY naming SCRIPT KILL and leaves
 * the script running (the converse, SCRIPT KILL against a function, is in {@link ScriptAtomicityTest}).
 */
class ScriptKillKindTest {

    @Test
    void functionKillRefusesARunningEvalWithTheBusyWordsOfRedis() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            Connection runner = new Connection(null, null, true);
            CompletableFuture<String> call = CompletableFuture.supplyAsync(
                    () -> server.callAs(runner, "EVAL", "while true do end", "0"));
            try {
                awaitBusy(server);
                assertEquals("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n",
                        server.call("FUNCTION", "KILL"));
                assertTrue(server.call("PING").startsWith("-BUSY"), "the script still runs");
                assertEquals("+OK\r\n", server.call("SCRIPT", "KILL"));
                assertTrue(call.get(10, TimeUnit.SECONDS).startsWith("-ERR Script killed"));
            } finally {
                endScript(server, call);
            }
        }
    }

    /** Stops the endless script whatever the assertions found, so a failing test ends rather than hangs. */
    private static void endScript(InProcessServer server, CompletableFuture<String> call) throws Exception {
        if (!call.isDone()) {
            server.dispatcher.scripting().requestKill();
        }
        call.get(10, TimeUnit.SECONDS);
    }

    /** Polls with a cheap command until the server reports the script as busy (past busy-reply-threshold). */
    private static void awaitBusy(InProcessServer server) {
        String answer;
        do {
            answer = server.call("GET", "k");
        } while (!answer.startsWith("-BUSY"));
    }
}
