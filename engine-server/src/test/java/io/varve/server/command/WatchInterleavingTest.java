package io.varve.server.command;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.KeyEncoding;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /**
     * SWAPDB marks the watchers of both databases before any EXEC may run on the swapped data: an EXEC that
     * arrives while the marks are being made waits for them and aborts.
     */
    @Test
    void anExecArrivingDuringSwapdbSeesItsMarks() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection other = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.call("WATCH", "k"));
            assertEquals("+OK\r\n", server.call("MULTI"));
            assertEquals("+QUEUED\r\n", server.call("GET", "k"));
            CompletableFuture<String> exec = new CompletableFuture<>();
            AtomicBoolean started = new AtomicBoolean();
            server.dispatcher.watches().probe = () -> {
                if (started.compareAndSet(false, true)) {
                    Thread.ofPlatform().start(() -> exec.complete(server.call("EXEC")));
                    while (!exec.isDone() && !server.dispatcher.gate().hasWaiters()) {
                        Thread.onSpinWait(); // until the EXEC has finished or waits for the gate
                    }
                }
            };
            assertEquals("+OK\r\n", server.callAs(other, "SWAPDB", "0", "1"));
            assertEquals("*-1\r\n", exec.get(), "the EXEC ran after the swap, so it must abort");
        }
    }

    /**
     * A run of SETs writes physical database 0, which after {@code SWAPDB 0 3} is logical database 3: its
     * watchers are the ones marked, and database 0's are not.
     */
    @Test
    void setRunsMarkTheLogicalDatabaseTheyWrote() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection writer = new Connection(null, null, true);
            Connection watcherOfZero = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.call("SWAPDB", "0", "3"));
            assertEquals("+OK\r\n", server.call("SELECT", "3"));
            assertEquals("+OK\r\n", server.call("WATCH", "k"));
            assertEquals("+OK\r\n", server.callAs(watcherOfZero, "WATCH", "k"));
            assertEquals("+OK\r\n", server.callAs(writer, "SELECT", "3"));
            SetRun run = server.dispatcher.newSetRun();
            assertTrue(run.offer(writer, InProcessServer.bytes("SET", "k", "v")), "a blind SET joins the run");
            ByteBuf out = Unpooled.buffer();
            run.commit(new Reply(out, 2));
            assertEquals("+OK\r\n", InProcessServer.text(out));
            assertEquals("$1\r\nv\r\n", server.call("GET", "k"));
            assertEquals("+OK\r\n", server.call("MULTI"));
            assertEquals("+QUEUED\r\n", server.call("PING"));
            assertEquals("*-1\r\n", server.call("EXEC"), "the watched key of database 3 was written");
            assertEquals("+OK\r\n", server.callAs(watcherOfZero, "MULTI"));
            assertEquals("+QUEUED\r\n", server.callAs(watcherOfZero, "PING"));
            assertEquals("*1\r\n+PONG\r\n", server.callAs(watcherOfZero, "EXEC"), "database 0 was not written");
        }
    }

    /** Changes applied without a command here (replicated entries, snapshots) mark their watchers. */
    @Test
    void appliedChangesMarkTheirWatchers() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            AppliedChanges marker = server.dispatcher.watchMarker();
            Connection inOne = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.callAs(inOne, "SELECT", "1"));
            String[][] cases = {{"metadata of database 0"}, {"subkey"}, {"snapshot"}, {"metadata of database 1"}};
            for (String[] name : cases) {
                assertEquals("+OK\r\n", server.call("WATCH", "k"));
                assertEquals("+OK\r\n", server.callAs(inOne, "WATCH", "j"));
                byte[] k = "k".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                switch (name[0]) {
                    case "metadata of database 0" -> marker.written(KeyEncoding.metadataKey(0, k));
                    case "subkey" -> marker.written(KeyEncoding.subkey(k, 7, new byte[] {1}));
                    case "snapshot" -> marker.replaced();
                    default -> marker.written(KeyEncoding.metadataKey(
                            server.keyspace.databases().physical(1), "j".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                }
                boolean zeroMarked = !name[0].equals("metadata of database 1");
                boolean oneMarked = name[0].equals("snapshot") || name[0].equals("metadata of database 1");
                assertEquals("+OK\r\n", server.call("MULTI"));
                assertEquals("+QUEUED\r\n", server.call("PING"));
                assertEquals(zeroMarked ? "*-1\r\n" : "*1\r\n+PONG\r\n", server.call("EXEC"), name[0]);
                assertEquals("+OK\r\n", server.callAs(inOne, "MULTI"));
                assertEquals("+QUEUED\r\n", server.callAs(inOne, "PING"));
                assertEquals(oneMarked ? "*-1\r\n" : "*1\r\n+PONG\r\n", server.callAs(inOne, "EXEC"), name[0]);
            }
        }
    }

    /** UNWATCH inside MULTI is queued, as in Redis: it cannot erase a mark the EXEC must abort on. */
    @Test
    void unwatchInsideMultiIsQueuedAndDoesNotSaveADirtyExec() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            Connection writer = new Connection(null, null, true);
            assertEquals("+OK\r\n", server.call("WATCH", "k"));
            assertEquals("+OK\r\n", server.callAs(writer, "SET", "k", "v"));
            assertEquals("+OK\r\n", server.call("MULTI"));
            assertEquals("+QUEUED\r\n", server.call("UNWATCH"));
            assertEquals("*-1\r\n", server.call("EXEC"));
            assertEquals("+OK\r\n", server.call("MULTI"));
            assertEquals("+QUEUED\r\n", server.call("UNWATCH"));
            assertEquals("*1\r\n+OK\r\n", server.call("EXEC"));
        }
    }
}
