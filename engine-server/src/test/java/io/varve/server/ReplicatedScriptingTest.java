package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Path;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Scripts on a replicated cluster: a script's writes are one Raft entry, applied whole on every member, and
 * function libraries travel with the replicated state, so a member that never saw FUNCTION LOAD runs them.
 */
class ReplicatedScriptingTest {

    @Test
    void aScriptIsOneEntryAndLibrariesReachTheFollowers(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            int follower = (leader + 1) % ReplicatedCluster.SIZE;
            try (RespClient l = RespClient.connect(cluster.clientPorts[leader]);
                 RespClient f = RespClient.connect(cluster.clientPorts[follower])) {
                ReplicatedCluster.await(() -> call(l, "SET", "k", "v1").equals("OK"), "a first write");
                long before = (Long) cluster.replication(leader).get("raft_last_log_index");
                assertEquals("3", call(l, "EVAL",
                        "redis.call('set', KEYS[1], '1') redis.call('incr', KEYS[1]) return redis.call('incr', KEYS[1])",
                        "1", "a"));
                assertEquals(before + 1, (Long) cluster.replication(leader).get("raft_last_log_index"),
                        "all of the script's writes in one entry");
                assertEquals("lib", call(l, "FUNCTION", "LOAD",
                        "#!lua name=lib\nredis.register_function{function_name='read', callback=function(keys) "
                                + "return redis.call('get', keys[1]) end, flags={'no-writes'}}"));
                cluster.awaitCaughtUp(follower, leader);
                assertEquals("OK", call(f, "READONLY"));
                assertEquals("3", call(f, "GET", "a"));
                assertEquals("3", call(f, "FCALL_RO", "read", "1", "a"), "the library came with the replicated state");
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
