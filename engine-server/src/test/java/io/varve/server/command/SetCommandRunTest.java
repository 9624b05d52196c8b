package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import io.varve.base.concurrent.LockStripes;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SetCommandRunTest {

    @Test
    void commitWaitsForTheStripeLockOfEveryKeyInTheRun() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            SetCommandRun run = s.dispatcher.newSetRun();
            assertTrue(run.offer(s.connection, InProcessServer.bytes("SET", "free", "1")));
            assertTrue(run.offer(s.connection, InProcessServer.bytes("SET", "held", "1")));
            ByteBuf out = Unpooled.buffer();
            Thread committer;
            try (LockStripes.Held held = s.keyspace.lock("held".getBytes())) {
                committer = Thread.ofPlatform().start(() -> run.commit(new Reply(out, 2)));
                while (committer.getState() != Thread.State.WAITING) {
                    assertTrue(committer.isAlive(), "the commit must wait for the held lock");
                    Thread.onSpinWait();
                }
                assertEquals("$-1\r\n", s.call("GET", "free"), "nothing of the run is visible before its commit");
            }
            committer.join();
            assertEquals("+OK\r\n+OK\r\n", InProcessServer.text(out));
            assertEquals("$1\r\n1\r\n", s.call("GET", "free"));
            assertEquals("$1\r\n1\r\n", s.call("GET", "held"));
            assertTrue(run.isEmpty());
        }
    }

    @Test
    void onlyBlindSetsOfAnAuthenticatedConnectionJoinAndTheRunIsBoundedInBytes() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            SetCommandRun run = s.dispatcher.newSetRun();
            Connection anonymous = new Connection(null, null, false);
            assertFalse(run.offer(anonymous, InProcessServer.bytes("SET", "k", "v")), "NOAUTH comes from the dispatcher");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("SET", "k", "v", "NX")));
            assertFalse(run.offer(s.connection, InProcessServer.bytes("SET", "k", "v", "EX", "-1")));
            assertFalse(run.offer(s.connection, InProcessServer.bytes("GET", "k")));
            assertTrue(run.isEmpty());
            String big = "x".repeat((int) SetCommandRun.MAX_BYTES - 10);
            assertTrue(run.offer(s.connection, InProcessServer.bytes("SET", "big", big)), "a large SET may start a run");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("SET", "k", "0123456789")), "but not grow it past the cap");
            ByteBuf out = Unpooled.buffer();
            run.commit(new Reply(out, 2));
            assertEquals("+OK\r\n", InProcessServer.text(out));
        }
    }
}
