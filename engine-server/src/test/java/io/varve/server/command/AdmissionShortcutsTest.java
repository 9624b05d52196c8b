package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shortcuts ask {@link Admission} before they take a request, and leave it alone when it would not run at once. */
class AdmissionShortcutsTest {

    @Test
    void aWritePauseSendsSetsToTheDispatcherAndLetsGetsThrough() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            assertEquals("+OK\r\n", s.call("SET", "k", "v"));
            Connection admin = new Connection(null, null, true);
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", "100000", "WRITE"));
            SetCommandRun run = s.dispatcher.newSetRun();
            assertFalse(run.offer(s.connection, InProcessServer.bytes("SET", "k", "w")), "the dispatcher waits it out");
            ByteBuf out = Unpooled.buffer();
            assertTrue(s.dispatcher.executeFromMemory(s.connection, InProcessServer.bytes("GET", "k"), new Reply(out, 2)));
            assertEquals("$1\r\nv\r\n", InProcessServer.text(out));

            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "PAUSE", "100000", "ALL"));
            out = Unpooled.buffer();
            assertFalse(s.dispatcher.executeFromMemory(s.connection, InProcessServer.bytes("GET", "k"), new Reply(out, 2)));
            assertEquals(0, out.readableBytes(), "nothing answered");
            out.release();
            assertEquals("+OK\r\n", s.callAs(admin, "CLIENT", "UNPAUSE"));
            assertTrue(run.offer(s.connection, InProcessServer.bytes("SET", "k", "w")));
        }
    }
}
