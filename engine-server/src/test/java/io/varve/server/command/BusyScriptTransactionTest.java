package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction meeting a busy script, as Redis 7's tests/unit/multi.tcl ("... and script timeout") checks it:
 * a command sent to be queued while the script is busy is refused with BUSY and not queued, so EXEC aborts;
 * an EXEC sent while it is busy discards the transaction and says why. Either way none of it runs.
 */
class BusyScriptTransactionTest {

    private static final String BUSY = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
            + "SHUTDOWN NOSAVE.";

    @Test
    void aCommandQueuedWhileAScriptIsBusyIsRefusedAndExecAborts() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            server.call("SET", "xx", "1");
            Connection client = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.callAs(client, "MULTI"));
            CompletableFuture<String> script = startEndlessScript(server);
            try {
                assertEquals("-" + BUSY + "\r\n", server.callAs(client, "INCR", "xx"));
                assertEquals("+OK\r\n", server.call("SCRIPT", "KILL"));
                script.get(10, TimeUnit.SECONDS);
                assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n",
                        server.callAs(client, "EXEC"));
                assertEquals("$1\r\n1\r\n", server.call("GET", "xx"));
            } finally {
                endScript(server, script);
            }
        }
    }

    @Test
    void anExecSentWhileAScriptIsBusyDiscardsTheTransaction() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            server.call("SET", "xx", "1");
            Connection client = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.callAs(client, "MULTI"));
            assertEquals("+QUEUED\r\n", server.callAs(client, "INCR", "xx"));
            CompletableFuture<String> script = startEndlessScript(server);
            try {
                assertEquals("-EXECABORT Transaction discarded because of: " + BUSY + "\r\n",
                        server.callAs(client, "EXEC"));
                assertEquals("+OK\r\n", server.call("SCRIPT", "KILL"));
                script.get(10, TimeUnit.SECONDS);
                assertEquals("$1\r\n1\r\n", server.call("GET", "xx"));
                assertEquals("+PONG\r\n", server.callAs(client, "PING"), "no longer in MULTI");
            } finally {
                endScript(server, script);
            }
        }
    }

    /** Runs {@code while true do end} on its own connection and returns once other commands get BUSY. */
    private static CompletableFuture<String> startEndlessScript(InProcessServer server) {
        Connection runner = new Connection(null, null, true);
        CompletableFuture<String> call = CompletableFuture.supplyAsync(
                () -> server.callAs(runner, "EVAL", "while true do end", "0"));
        String answer;
        do {
            answer = server.call("GET", "probe");
        } while (!answer.startsWith("-BUSY"));
        return call;
    }

    /** Stops the endless script whatever the assertions found, so a failing test ends rather than hangs. */
    private static void endScript(InProcessServer server, CompletableFuture<String> call) throws Exception {
        if (!call.isDone()) {
            server.dispatcher.scripting().requestKill();
        }
        assertTrue(call.get(10, TimeUnit.SECONDS).startsWith("-ERR Script killed"));
    }
}
