package io.varve.server.command;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * CLIENT PAUSE WRITE holds every way a write can run: a write queued inside MULTI, and an EXEC whose queue
 * holds a write; reads and read-only transactions go on. Each held command is observed waiting through the
 * pause's own count before anything is checked, so no test depends on timing.
 */
@Timeout(120) // a regression would hang in awaitWaiting; this turns it into a failure
class ClientPauseTest {

    @Test
    void anExecWhoseQueueWritesWaitsOutAWritePause() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            Connection admin = new Connection(null, null, true);
            Connection reader = new Connection(null, null, true);
            assertEquals("+OK\r\n", s.call("MULTI"));
            assertEquals("+QUEUED\r\n", s.call("SET", "pk", "v"));
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", "100000", "WRITE"));

            CompletableFuture<String> exec = CompletableFuture.supplyAsync(() -> s.call("EXEC"));
            s.dispatcher.pause().awaitWaiting(1);
            assertEquals("$-1\r\n", s.callAs(reader, "GET", "pk"), "the paused EXEC has not written");
            assertFalse(exec.isDone());

            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "UNPAUSE"));
            assertEquals("*1\r\n+OK\r\n", exec.get());
            assertEquals("$1\r\nv\r\n", s.callAs(reader, "GET", "pk"));
        }
    }

    @Test
    void aWriteQueuedDuringAWritePauseWaitsBeforeItIsQueued() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            Connection admin = new Connection(null, null, true);
            assertEquals("+OK\r\n", s.call("MULTI"));
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", "100000", "WRITE"));
            assertEquals("+QUEUED\r\n", s.call("GET", "pk"), "reads are queued at once");
            CompletableFuture<String> queued = CompletableFuture.supplyAsync(() -> s.call("SET", "pk", "v"));
            s.dispatcher.pause().awaitWaiting(1);
            assertFalse(queued.isDone());
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "UNPAUSE"));
            assertEquals("+QUEUED\r\n", queued.get());
            assertEquals("*2\r\n$-1\r\n+OK\r\n", s.call("EXEC"));
        }
    }

    @Test
    void aReadOnlyExecRunsDuringAWritePause() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            Connection admin = new Connection(null, null, true);
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", "100000", "WRITE"));
            assertEquals("+OK\r\n", s.call("MULTI"));
            assertEquals("+QUEUED\r\n", s.call("GET", "k"));
            assertEquals("*1\r\n$-1\r\n", s.call("EXEC"));
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "UNPAUSE"));
        }
    }

    @Test
    void aTimeoutWhoseDeadlineWouldOverflowIsOutOfRange() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            assertEquals("-ERR timeout is out of range\r\n", s.call("CLIENT", "PAUSE", "9223372036854775807"));
            assertEquals("-ERR timeout is out of range\r\n",
                    s.call("CLIENT", "PAUSE", Long.toString(Long.MAX_VALUE - System.currentTimeMillis() + 1000)));
            assertEquals("+OK\r\n", s.call("SET", "k", "v"), "no pause is in force");
            assertEquals("-ERR timeout is negative\r\n", s.call("CLIENT", "PAUSE", "-1"));
        }
    }

    @Test
    void theLongestAcceptedPauseHoldsUntilUnpaused() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            Connection admin = new Connection(null, null, true);
            String longest = Long.toString(Long.MAX_VALUE - System.currentTimeMillis() - 60_000);
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", longest, "WRITE"));
            CompletableFuture<String> write = CompletableFuture.supplyAsync(() -> s.call("SET", "k", "v"));
            s.dispatcher.pause().awaitWaiting(1);
            assertFalse(write.isDone());
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "UNPAUSE"));
            assertEquals("+OK\r\n", write.get());
        }
    }

    @Test
    void objectHelpTakesNoArguments() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            assertEquals("-ERR wrong number of arguments for 'object|help' command\r\n", s.call("OBJECT", "HELP", "x"));
            assertEquals("-ERR unknown subcommand 'nosuch'. Try OBJECT HELP.\r\n", s.call("OBJECT", "nosuch"));
            assertEquals("-ERR wrong number of arguments for 'object|encoding' command\r\n",
                    s.call("OBJECT", "ENCODING"));
        }
    }
}
