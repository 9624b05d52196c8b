package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A script against other clients at the points that matter: another client's command arriving between two
 * of the script's commands, a script running past the busy threshold, SCRIPT KILL and FUNCTION KILL. Each
 * interleaving is forced through the dispatcher's script probe and the command gate's waiters.
 */
class ScriptAtomicityTest {

    private static final String BUSY = "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";

    /** A write sent while a script runs lands after the script, never between its commands. */
    @Test
    void anotherClientsWriteWaitsForTheWholeScript() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection other = new Connection(null, null, true);
            AtomicBoolean started = new AtomicBoolean();
            CompletableFuture<String> otherWrite = new CompletableFuture<>();
            server.dispatcher.scriptCommandProbe = () -> {
                if (started.compareAndSet(false, true)) {
                    Thread.ofVirtual().start(() -> otherWrite.complete(server.callAs(other, "SET", "k", "other")));
                    while (!server.dispatcher.gate().hasWaiters() && !otherWrite.isDone()) {
                        Thread.onSpinWait(); // until the other client's SET waits at the gate (or, wrongly, ran)
                    }
                }
            };
            String reply = server.call("EVAL",
                    "redis.call('set', KEYS[1], 'first'); redis.call('append', KEYS[1], '-second'); "
                            + "return redis.call('get', KEYS[1])", "1", "k");
            assertEquals("$12\r\nfirst-second\r\n", reply, "no other command ran between the script's commands");
            assertEquals("+OK\r\n", otherWrite.get(10, TimeUnit.SECONDS));
            assertEquals("$5\r\nother\r\n", server.call("GET", "k"), "the other write ran after the script");
        }
    }

    /** Past the busy threshold other clients get BUSY; SCRIPT KILL stops a script that has not written. */
    @Test
    void aBusyScriptAnswersOthersBusyUntilScriptKill() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            Connection runner = new Connection(null, null, true);
            Connection killer = new Connection(null, null, true);
            CompletableFuture<String> script = CompletableFuture.supplyAsync(
                    () -> server.callAs(runner, "EVAL", "local i = 0 while true do i = i + 1 end", "0"));
            String answer;
            do {
                answer = server.call("GET", "k"); // waits at the gate while the script runs, then gives up
            } while (!answer.startsWith("-BUSY"));
            assertEquals(BUSY, answer);
            assertEquals("+OK\r\n", server.callAs(killer, "SCRIPT", "KILL"));
            assertTrue(script.get(10, TimeUnit.SECONDS).startsWith("-ERR Script killed by user with SCRIPT KILL..."),
                    "the killed script's caller hears why");
            assertEquals("$-1\r\n", server.call("GET", "k"), "the server serves again");
            assertEquals("-NOTBUSY No scripts in execution right now.\r\n", server.call("SCRIPT", "KILL"));
        }
    }

    /** A script that has written cannot be killed: its writes must stay whole. */
    @Test
    void aScriptThatWroteIsUnkillable() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            Connection runner = new Connection(null, null, true);
            CompletableFuture<String> script = CompletableFuture.supplyAsync(() -> server.callAs(runner, "EVAL",
                    "redis.call('set', 'written', '1') while true do end", "0"));
            String answer;
            do {
                answer = server.call("GET", "k");
            } while (!answer.startsWith("-BUSY"));
            assertTrue(server.call("SCRIPT", "KILL").startsWith("-UNKILLABLE Sorry the script already executed write commands"));
            assertFalse(script.isDone());
            server.dispatcher.scripting().requestKill(); // what SHUTDOWN NOSAVE would do; the test must end it
            script.get(10, TimeUnit.SECONDS);
            assertEquals("$1\r\n1\r\n", server.call("GET", "written"), "its writes before the stop are kept");
        }
    }

    /** FUNCTION KILL stops a busy function; SCRIPT KILL leaves it running and names FUNCTION KILL, as Redis does. */
    @Test
    void functionKillStopsABusyFunction() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            server.configuration.put("busy-reply-threshold", "20");
            assertEquals("$3\r\nlib\r\n", server.call("FUNCTION", "LOAD",
                    "#!lua name=lib\nredis.register_function('spin', function() while true do end end)"));
            Connection runner = new Connection(null, null, true);
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> server.callAs(runner, "FCALL", "spin", "0"));
            String answer;
            do {
                answer = server.call("GET", "k");
            } while (!answer.startsWith("-BUSY"));
            assertEquals("-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n", answer);
            try {
                assertEquals("-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n",
                        server.call("SCRIPT", "KILL"));
                assertEquals("+OK\r\n", server.call("FUNCTION", "KILL"));
                assertTrue(call.get(10, TimeUnit.SECONDS).startsWith("-ERR Script killed by user with FUNCTION KILL..."));
            } finally {
                if (!call.isDone()) {
                    server.dispatcher.scripting().requestKill(); // a failed assertion must not leave it spinning
                }
            }
        }
    }
}
