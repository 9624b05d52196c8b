package io.varve.server.command;

import io.varve.base.concurrent.LockStripes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An EXEC is atomic against blocking commands too: a BLPOP that finds data pops inside the command gate
 * like any command, so it cannot pop between two of an EXEC's commands. The EXEC is held mid-way by a
 * queued SET whose key's lock the test holds; the BLPOP is let go only once it is known to wait at the gate
 * (or, were it to run outside the gate, once it has finished).
 */
class BlockingInsideExecTest {

    @Test
    void aBlockingPopWithDataWaitsForAnExecInProgress() throws Exception {
        try (InProcessServer server = new InProcessServer();
             ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Connection transaction = new Connection(null, null, true);
            Connection popper = new Connection(null, null, true);
            assertEquals(":1\r\n", server.call("RPUSH", "l", "x"));
            assertEquals("+OK\r\n", server.callAs(transaction, "MULTI"));
            assertEquals("+QUEUED\r\n", server.callAs(transaction, "LLEN", "l"));
            assertEquals("+QUEUED\r\n", server.callAs(transaction, "SET", "held", "v"));
            assertEquals("+QUEUED\r\n", server.callAs(transaction, "LLEN", "l"));
            CommandGate gate = server.dispatcher.gate();
            CompletableFuture<String> exec;
            CompletableFuture<String> pop;
            try (LockStripes.Held held = server.keyspace.lock("held".getBytes(StandardCharsets.UTF_8))) {
                exec = CompletableFuture.supplyAsync(() -> server.callAs(transaction, "EXEC"), threads);
                awaitExclusiveTaken(gate, exec);
                pop = CompletableFuture.supplyAsync(() -> server.callAs(popper, "BLPOP", "l", "0"), threads);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!pop.isDone() && !gate.hasWaiters()) {
                    assertTrue(System.nanoTime() < deadline, "BLPOP neither finished nor waits at the gate");
                    Thread.onSpinWait();
                }
            }
            assertEquals("*3\r\n:1\r\n+OK\r\n:1\r\n", exec.get(10, TimeUnit.SECONDS), "one length inside EXEC");
            assertEquals("*2\r\n$1\r\nl\r\n$1\r\nx\r\n", pop.get(10, TimeUnit.SECONDS));
        }
    }

    /** Waits until the EXEC holds the gate's exclusive side (a shared entry is refused). */
    private static void awaitExclusiveTaken(CommandGate gate, CompletableFuture<String> exec) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            assertTrue(!exec.isDone(), "EXEC finished while its SET's key was locked");
            try (CommandGate.Held shared = gate.tryShared()) {
                if (shared == null) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "EXEC never took the gate");
            Thread.onSpinWait();
        }
    }
}
