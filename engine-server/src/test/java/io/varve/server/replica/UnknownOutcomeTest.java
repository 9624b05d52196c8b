package io.varve.server.replica;

import io.varve.server.command.CommandSpec;
import io.varve.server.command.CommandTable;
import io.varve.server.command.Connection;
import io.varve.server.command.Connections;
import io.varve.server.resp.RedisError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.varve.server.replica.OneMemberGroup.bytes;
import static io.varve.server.replica.OneMemberGroup.put;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rule for writes of unknown outcome ({@link GroupMember}): once a write times out after proposing, no
 * write may commit from a state that write could still overwrite. Each test makes a write time out on a member
 * that still leads by holding its Raft log's syncs ({@link OneMemberGroup}), so the entry is proposed but not
 * committed, then tries one way past the rule.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnknownOutcomeTest {

    private static final String MAY_OR_MAY_NOT = "ERR the write may or may not have been applied";

    /**
     * The timed-out write's entry waits behind the held sync, in jraft's queues: a barrier proposed after it
     * cannot apply first, so writers are refused until the syncs resume, and a command admitted as a read
     * (which EXEC's queued commands or a script would be, were they not admitted as writes) may not commit.
     */
    @Test
    void writesWaitUntilABarrierBehindTheUnknownWriteApplies(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            GroupMember member = new GroupMember(group.replicated, "barrier");
            member.write(put("k", "old"), member.admitOnLeader(true));

            group.holdLogSyncs();
            timeOut(member, put("k", "unknown"));

            assertRefused(() -> member.admitOnLeader(true), "a writer's admission");
            assertFalse(member.readyToWrite(), "a background writer");
            long readStamp = member.admitOnLeader(false); // reads the committed state, which lacks the write
            assertRefused(() -> member.write(put("k", "from-a-read"), readStamp), "a write admitted as a read");
            assertRefused(() -> member.write(put("k", "background"), GroupMember.BACKGROUND), "a background write");

            group.releaseLogSyncs();
            long stamp = member.admitOnLeader(true);
            assertArrayEquals(bytes("unknown"), group.replicated.get(bytes("k")),
                    "admitted only once the timed-out write has applied");
            member.write(put("k", "new"), stamp);
            assertArrayEquals(bytes("new"), group.replicated.get(bytes("k")));
            assertTrue(member.readyToWrite());
        }
    }

    /**
     * A command admitted before the write timed out (it then waited for that write's stripe lock, and read
     * once it had it) may not commit, even after another command has settled the outcome: what it read may
     * predate the write's apply.
     */
    @Test
    void aCommandAdmittedBeforeTheOutcomeBecameUnknownIsRefusedAtItsCommit(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            GroupMember member = new GroupMember(group.replicated, "barrier");
            long waiting = member.admitOnLeader(true);

            group.holdLogSyncs();
            timeOut(member, put("k", "unknown"));
            group.releaseLogSyncs();
            long later = member.admitOnLeader(true); // settles the outcome

            long before = group.lastLogIndex();
            assertRefused(() -> member.write(put("k", "stale"), waiting), "the command admitted before");
            assertEquals(before, group.lastLogIndex(), "nothing proposed");
            member.write(put("k", "fresh"), later);
            assertArrayEquals(bytes("fresh"), group.replicated.get(bytes("k")));
        }
    }

    /**
     * A settle that finishes after later ones does not lower the settled count: a later settle covered a
     * write that timed out after the early one's barrier, so a background write needs no new barrier.
     */
    @Test
    void aLateSettleNeverLowersTheSettledCount(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            GroupMember member = new GroupMember(group.replicated, "barrier");
            group.holdLogSyncs();
            timeOut(member, put("a", "unknown"));
            group.releaseLogSyncs();

            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            member.beforeSettledCountRises = () -> {
                member.beforeSettledCountRises = () -> { };
                held.countDown();
                await(resume);
            };
            CompletableFuture<Long> early = CompletableFuture.supplyAsync(() -> member.admitOnLeader(true));
            await(held); // its barrier applied; it has not yet raised the settled count to 1
            member.admitOnLeader(true); // another settle of the same outcome, which finishes first

            group.holdLogSyncs();
            timeOut(member, put("b", "unknown"));
            group.releaseLogSyncs();
            long stamp = member.admitOnLeader(true); // settles both
            resume.countDown();
            assertEquals(1, early.get(), "the early command's stamp");
            assertEquals(2, stamp);

            long before = group.lastLogIndex();
            member.write(put("c", "background"), GroupMember.BACKGROUND);
            assertEquals(before + 1, group.lastLogIndex(), "the write alone, no barrier before it");
            assertRefused(() -> member.write(put("c", "stale"), early.join()), "the early command");
        }
    }

    /**
     * A blind write (a SET joining a run) skips admission only on a member caught up in its term with every
     * outcome settled; otherwise it goes through admission, which waits for what is missing.
     */
    @Test
    void blindWritesSkipAdmissionOnlyWhileEveryOutcomeIsSettled(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            GroupMember member = new GroupMember(group.replicated, "barrier");
            assertFalse(member.admitsBlindWriteAtOnce(), "before the member confirmed it is caught up");
            member.write(put("k", "old"), member.admitOnLeader(true));
            assertTrue(member.admitsBlindWriteAtOnce());

            group.holdLogSyncs();
            timeOut(member, put("k", "unknown"));
            assertFalse(member.admitsBlindWriteAtOnce(), "while a write's outcome is unknown");
            group.releaseLogSyncs();
            assertFalse(member.admitsBlindWriteAtOnce(), "until a barrier settles it");
            member.admitOnLeader(true);
            assertTrue(member.admitsBlindWriteAtOnce());
            member.write(put("k", "blind"), GroupMember.BACKGROUND);
            assertArrayEquals(bytes("blind"), group.replicated.get(bytes("k")));
        }
    }

    /** EXEC and scripts are admitted as writes on the leader: while an outcome is unknown they are refused. */
    @Test
    void execAndScriptsSettleUnknownOutcomesBeforeTheyRun(@TempDir Path dir) throws Exception {
        try (OneMemberGroup group = OneMemberGroup.start(dir)) {
            ReplicationSettings settings = new ReplicationSettings(group.address,
                    Map.of(group.address, "127.0.0.1:6379"), false, 3600, 300, 0);
            RaftReplica replica = new RaftReplica(group.process, group.replicated, settings);
            CommandTable table = CommandTable.standard();
            Connection plain = new Connection(null, null, true);
            assertNull(replica.admit(table.lookup("set"), args("SET", "k", "v"), plain));
            replica.write(put("k", "old"), null);

            group.holdLogSyncs();
            assertNull(replica.admit(table.lookup("set"), args("SET", "k", "v"), plain));
            RedisError unknown = assertThrows(RedisError.class, () -> replica.write(put("k", "unknown"), null));
            assertTrue(unknown.getMessage().startsWith(MAY_OR_MAY_NOT), unknown.getMessage());

            Connection inMulti = Connections.inMulti();
            assertEquals(GroupMember.UNKNOWN_PENDING, replica.admit(table.lookup("exec"), args("EXEC"), inMulti));
            CommandSpec eval = table.lookup("eval");
            assertEquals(GroupMember.UNKNOWN_PENDING,
                    replica.admit(eval, args("EVAL", "redis.call('set', KEYS[1], 'x')", "1", "k"), plain));
            // a keyless command that writes anyway commits as a background writer would, not with the stamp of
            // the read this thread admitted before it: not now
            assertNull(replica.admit(table.lookup("get"), args("GET", "k"), plain));
            assertNull(replica.admit(eval, args("EVAL", "return 1", "0"), plain));
            assertRefused(() -> replica.write(put("k", "keyless"), null), "a keyless command's write");

            group.releaseLogSyncs();
            assertNull(replica.admit(table.lookup("exec"), args("EXEC"), inMulti));
            assertArrayEquals(bytes("unknown"), group.replicated.get(bytes("k")));
            replica.write(put("k", "from-exec"), null);
            assertArrayEquals(bytes("from-exec"), group.replicated.get(bytes("k")));
        }
    }

    /** Proposes {@code batch} on the member, with its syncs held, and checks that the write timed out. */
    private static void timeOut(GroupMember member, io.varve.core.WriteBatch batch) {
        long stamp = member.admitOnLeader(true);
        RedisError e = assertThrows(RedisError.class, () -> member.write(batch, stamp));
        assertTrue(e.getMessage().startsWith(MAY_OR_MAY_NOT), e.getMessage());
    }

    private static void assertRefused(org.junit.jupiter.api.function.Executable call, String who) {
        RedisError e = assertThrows(RedisError.class, call, who + " is refused");
        assertEquals(GroupMember.UNKNOWN_PENDING, e.getMessage(), who);
    }

    private static byte[][] args(String... words) {
        byte[][] out = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            out[i] = bytes(words[i]);
        }
        return out;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
