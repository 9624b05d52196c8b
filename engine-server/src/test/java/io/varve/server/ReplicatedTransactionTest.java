package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * MULTI/EXEC/WATCH on a replicated cluster: EXEC runs on the leader or not at all, and writes applied through
 * Raft mark the watchers of every member.
 */
class ReplicatedTransactionTest {

    @Test
    void execOnAMemberThatDoesNotLeadIsRefusedWholeAndAppliedWritesMarkItsWatchers(@TempDir Path dir)
            throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            int follower = (leader + 1) % ReplicatedCluster.SIZE;
            String leaderClient = "127.0.0.1:" + cluster.clientPorts[leader];
            try (RespClient l = RespClient.connect(cluster.clientPorts[leader]);
                 RespClient f = RespClient.connect(cluster.clientPorts[follower])) {
                ReplicatedCluster.await(() -> call(l, "SET", "k", "v1").equals("OK"), "a first write");
                cluster.awaitCaughtUp(follower, leader);
                assertEquals("OK", call(f, "READONLY"));
                assertEquals("OK", call(f, "MULTI"));
                assertEquals("QUEUED", call(f, "GET", "k"));
                String refused = call(f, "EXEC");
                assertEquals("MOVED 0 " + leaderClient, refused, "EXEC runs nothing on a follower");
                assertEquals("ERR EXEC without MULTI", call(f, "EXEC"), "and ends the transaction");

                // On the leader an EXEC is one Raft entry, whose commands read each other's writes.
                long before = (Long) cluster.replication(leader).get("raft_last_log_index");
                assertEquals("OK", call(l, "MULTI"));
                for (String[] queued : new String[][] {{"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"},
                        {"APPEND", "a", "0"}, {"DEL", "gone"}}) {
                    assertEquals("QUEUED", call(l, queued));
                }
                assertEquals("[OK, 2, 2, 2, 0]", call(l, "EXEC"));
                assertEquals(before + 1, (Long) cluster.replication(leader).get("raft_last_log_index"),
                        "all of the EXEC's writes in one entry");
                assertEquals("20", call(l, "GET", "a"));

                // A watch taken on the follower, then a write the leader makes and the follower applies.
                assertEquals("OK", call(f, "WATCH", "k"));
                assertEquals("OK", call(l, "SET", "k", "v2"));
                cluster.awaitCaughtUp(follower, leader);
                cluster.stop(leader);
                int next = cluster.awaitLeader(leader);
                String nextClient = "127.0.0.1:" + cluster.clientPorts[next];
                try (RespClient n = RespClient.connect(cluster.clientPorts[next])) {
                    // a write of another key on the new leader returns once it is ready for EXEC as well
                    ReplicatedCluster.await(() -> call(n, "SET", "other", "x").equals("OK"), "a ready leader");
                }
                assertEquals("OK", call(f, "MULTI"));
                assertEquals("QUEUED", call(f, "GET", "k"));
                String exec = call(f, "EXEC");
                if (next == follower) {
                    assertEquals("null", exec, "the applied write marked the follower's watcher (a null array)");
                } else {
                    assertEquals("MOVED 0 " + nextClient, exec, "EXEC runs nothing on a follower");
                }
            }
        }
    }

    private static String call(RespClient client, String... args) {
        try {
            Object reply = client.call(args);
            return reply instanceof RespClient.Err e ? e.text() : String.valueOf(reply);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
