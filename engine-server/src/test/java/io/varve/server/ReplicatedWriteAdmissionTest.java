package io.varve.server;

import io.varve.testsupport.RaftProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A write on the leader waits for no read index when it commits (its entry commits only while the member
 * leads), and waits for one before it answers when it commits nothing: a deposed leader that has not noticed
 * must not answer from what it read.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicatedWriteAdmissionTest {

    @Test
    void onlyWritesThatCommitNothingWaitForAReadIndex(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            // The first command of a new term waits for a read index too (the leader's catch-up): an election
            // during the sequence (a stall on a loaded machine) makes its counts say nothing, so it runs again.
            for (int attempt = 0; ; attempt++) {
                int leader = cluster.awaitLeader(-1);
                try (RespClient client = RespClient.connect(cluster.clientPorts[leader])) {
                    String counter = "counter" + attempt;
                    String hash = "hash" + attempt;
                    awaitOk(client, counter, "0");
                    long term = term(cluster, leader);
                    long before = readIndexes(cluster, leader);
                    List<Object> replies = new ArrayList<>();
                    for (int i = 1; i <= 10; i++) {
                        replies.add(client.call("INCR", counter));
                    }
                    replies.add(client.call("HSET", hash, "field", "1"));
                    long afterCommits = readIndexes(cluster, leader);
                    replies.add(client.call("SET", counter, "5", "NX"));
                    long afterSetNx = readIndexes(cluster, leader);
                    replies.add(client.call("HSETNX", hash, "field", "2"));
                    long afterHsetNx = readIndexes(cluster, leader);
                    replies.add(client.call("GET", counter));
                    long afterGet = readIndexes(cluster, leader);
                    if (term(cluster, leader) != term && attempt < 5) {
                        continue;
                    }
                    assertEquals(Arrays.asList(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 1L, null, 0L, "10"),
                            replies);
                    assertEquals(before, afterCommits, "writes that commit");
                    assertEquals(before + 1, afterSetNx, "a write that commits nothing");
                    assertEquals(before + 2, afterHsetNx);
                    assertEquals(before + 3, afterGet, "a read");
                    return;
                }
            }
        }
    }

    private static long term(ReplicatedCluster cluster, int member) {
        return ((Number) cluster.replication(member).get("raft_term")).longValue();
    }

    @Test
    void anIsolatedLeaderAnswersNoWriteFromWhatItRead(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, true)) {
            int old = cluster.awaitLeader(-1);
            try (RespClient client = RespClient.connect(cluster.clientPorts[old])) {
                awaitOk(client, "k", "v");
                cluster.proxies[old].dropAll();
                for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                    if (i != old) {
                        cluster.proxies[i].dropFrom(cluster.raftAddress(old));
                    }
                }
                // Sent at once, while the member still believes it leads (it steps down an election timeout
                // after it last heard from a majority): SET NX finds the key and commits nothing, so its nil
                // would rest on a state no majority confirms. It must be refused instead.
                RespClient.Err refused = assertInstanceOf(RespClient.Err.class, client.call("SET", "k", "x", "NX"));
                assertEquals(true, refused.text().startsWith("TRYAGAIN") || refused.text().startsWith("CLUSTERDOWN")
                        || refused.text().startsWith("MOVED"), refused.text());
            }
            for (RaftProxy proxy : cluster.proxies) {
                proxy.heal();
            }
            int leader = cluster.awaitLeader(-1);
            try (RespClient client = RespClient.connect(cluster.clientPorts[leader])) {
                awaitOk(client, "after", "healed");
                assertEquals("v", client.call("GET", "k"));
            }
        }
    }

    private static void awaitOk(RespClient client, String key, String value) throws TimeoutException, IOException {
        IOException[] failure = new IOException[1];
        ReplicatedCluster.await(() -> {
            try {
                return "OK".equals(client.call("SET", key, value));
            } catch (IOException e) {
                failure[0] = e;
                return true;
            }
        }, "an acknowledged SET");
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    private static long readIndexes(ReplicatedCluster cluster, int member) {
        return (Long) cluster.replication(member).get("raft_read_indexes");
    }
}
