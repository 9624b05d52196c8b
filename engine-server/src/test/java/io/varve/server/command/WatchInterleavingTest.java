package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * WATCH against writers at the exact points where a mark could be lost or misplaced, each interleaving
 * forced through the {@link WatchRegistry}'s probe.
 */
class WatchInterleavingTest {

    /** A write of a key landing while UNWATCH forgets it must not dirty the transactions that come after. */
    @Test
    void aWriteDuringUnwatchDoesNotAbortTheNextExec() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection writer = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.call("WATCH", "k"));
            AtomicBoolean wrote = new AtomicBoolean();
            server.dispatcher.watches().probe = () -> {
                if (wrote.compareAndSet(false, true)) {
                    assertEquals("+OK\r\n", server.callAs(writer, "SET", "k", "v"));
                }
            };
            assertEquals("+OK\r\n", server.call("UNWATCH"));
            assertEquals(true, wrote.get());
            assertEquals("+OK\r\n", server.call("MULTI"));
            assertEquals("+QUEUED\r\n", server.call("PING"));
            assertEquals("*1\r\n+PONG\r\n", server.call("EXEC"), "nothing was watched");
        }
    }

    /** The same through DISCARD and RESET, which forget the watches the same way. */
    @Test
    void aWriteDuringDiscardOrResetDoesNotAbortTheNextExec() throws Exception {
        for (String[] forget : new String[][] {{"MULTI", "DISCARD"}, {"RESET"}}) {
            try (InProcessServer server = new InProcessServer()) {
                Connection writer = new Connection(null, null, true);
                assertEquals("+OK\r\n", server.call("WATCH", "k"));
                AtomicBoolean wrote = new AtomicBoolean();
                server.dispatcher.watches().probe = () -> {
                    if (wrote.compareAndSet(false, true)) {
                        server.callAs(writer, "SET", "k", "v");
                    }
                };
                for (String command : forget) {
                    server.call(command);
                }
                assertEquals(true, wrote.get());
                assertEquals("+OK\r\n", server.call("MULTI"));
                assertEquals("+QUEUED\r\n", server.call("PING"));
                assertEquals("*1\r\n+PONG\r\n", server.call("EXEC"), String.join(" ", forget));
            }
        }
    }
}
