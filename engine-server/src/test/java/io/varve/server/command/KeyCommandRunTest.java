package io.varve.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.varve.server.resp.Reply;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's consecutive writes to one key run together ({@link KeyCommandRun}): their batch is written
 * once, other connections see none of it until then, and what follows each write (WATCH marks) follows the
 * commit.
 */
class KeyCommandRunTest {

    /** Runs {@code commands} through a key run of {@code s}'s connection and returns their replies. */
    private static String runTogether(InProcessServer s, KeyCommandRun run, String[]... commands) {
        ByteBuf out = Unpooled.buffer();
        Reply reply = new Reply(out, 2);
        for (String[] command : commands) {
            assertTrue(run.offer(s.connection, InProcessServer.bytes(command)), String.join(" ", command));
        }
        run.commit(reply);
        return InProcessServer.text(out);
    }

    @Test
    void writesToOneKeyCommitTogetherAndAFailedOneRepliesItsError() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            AtomicLong together = new AtomicLong();
            KeyCommandRun run = s.dispatcher.newKeyRun(together::addAndGet);
            String replies = runTogether(s, run, new String[] {"LPUSH", "k", "a"}, new String[] {"LPUSH", "k", "b"},
                    new String[] {"INCR", "k"}, new String[] {"RPUSH", "k", "c"}, new String[] {"LPOP", "k"});
            assertEquals(":1\r\n:2\r\n-" + io.varve.server.resp.RedisError.WRONG_TYPE + "\r\n:3\r\n$1\r\nb\r\n",
                    replies);
            assertEquals(5, together.get(), "the five requests ran as one run");
            assertEquals("*2\r\n$1\r\na\r\n$1\r\nc\r\n", s.call("LRANGE", "k", "0", "-1"));
        }
    }

    @Test
    void onlyWritesOfTheRunsOneKeyJoin() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            KeyCommandRun run = s.dispatcher.newKeyRun(n -> { });
            ByteBuf out = Unpooled.buffer();
            Reply reply = new Reply(out, 2);
            assertFalse(run.offer(s.connection, InProcessServer.bytes("GET", "k")), "a read");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("MSET", "a", "1", "b", "2")), "two keys");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("RENAME", "a", "b")), "two keys");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("BLPOP", "k", "0")), "blocking");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("EVAL", "return 1", "1", "k")), "script");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("MOVE", "k", "1")), "other database");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("FLUSHDB")), "whole database");
            assertTrue(run.offer(s.connection, InProcessServer.bytes("MSET", "a", "1")), "one key");
            assertFalse(run.offer(s.connection, InProcessServer.bytes("INCR", "b")), "another key than the run's");
            assertTrue(run.offer(s.connection, InProcessServer.bytes("INCR", "a")), "the run's key");
            run.commit(reply);
            assertTrue(run.isEmpty());
            assertEquals("+OK\r\n:2\r\n", InProcessServer.text(out));
        }
    }

    /** A run whose batch waits at {@link KeyCommandRun#beforeWrite} until {@code release} opens. */
    private static KeyCommandRun heldRun(InProcessServer s, CountDownLatch ran, CountDownLatch release) {
        KeyCommandRun run = s.dispatcher.newKeyRun(n -> { });
        run.beforeWrite = () -> {
            ran.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        return run;
    }

    /**
     * The run's batch is held back after its requests ran: another connection reads the key as it was before
     * the run and WATCHes it; once the batch is written, the connection that ran it sees all of it and the
     * watcher's EXEC aborts, since the key changed after its WATCH.
     */
    @Test
    void noOtherConnectionSeesPartOfARunAndItsWatchesAreMarkedAfterTheCommit() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            CountDownLatch ran = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            KeyCommandRun run = heldRun(s, ran, release);
            Connection other = new Connection(null, null, true);
            ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
            Future<String> replies = threads.submit(() -> runTogether(s, run,
                    new String[] {"RPUSH", "k", "a"}, new String[] {"RPUSH", "k", "b"}, new String[] {"RPUSH", "k", "c"}));
            threads.shutdown();
            assertTrue(ran.await(60, TimeUnit.SECONDS), "the run reached its write");
            assertEquals("*0\r\n", s.callAs(other, "LRANGE", "k", "0", "-1"), "nothing of the run before its write");
            assertEquals(":0\r\n", s.callAs(other, "LLEN", "k"));
            assertEquals("+OK\r\n", s.callAs(other, "WATCH", "k"));
            release.countDown();
            assertEquals(":1\r\n:2\r\n:3\r\n", replies.get(60, TimeUnit.SECONDS));
            assertEquals("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", s.call("LRANGE", "k", "0", "-1"),
                    "the run's connection sees the whole run");
            assertEquals("+OK\r\n", s.callAs(other, "MULTI"));
            assertEquals("+QUEUED\r\n", s.callAs(other, "LLEN", "k"));
            assertEquals("*-1\r\n", s.callAs(other, "EXEC"), "the run changed the key after the WATCH");
        }
    }

    /** A write of another connection to the key of a held run waits for the key's lock: it lands after the run. */
    @Test
    void anotherConnectionsWriteToTheKeyLandsAfterTheWholeRun() throws Exception {
        try (InProcessServer s = new InProcessServer();
             ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            CountDownLatch ran = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            KeyCommandRun run = heldRun(s, ran, release);
            Connection writer = new Connection(null, null, true);
            Future<String> replies = threads.submit(() -> runTogether(s, run,
                    new String[] {"RPUSH", "k", "a"}, new String[] {"RPUSH", "k", "b"}));
            assertTrue(ran.await(60, TimeUnit.SECONDS), "the run reached its write");
            Future<String> push = threads.submit(() -> s.callAs(writer, "RPUSH", "k", "z"));
            release.countDown();
            assertEquals(":1\r\n:2\r\n", replies.get(60, TimeUnit.SECONDS));
            assertEquals(":3\r\n", push.get(60, TimeUnit.SECONDS));
            assertEquals("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nz\r\n", s.call("LRANGE", "k", "0", "-1"));
        }
    }
}
