package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Clients blocked on a leader are answered Redis's UNBLOCKED when it stops leading, not left hanging. */
class ReplicatedBlockingTest {

    @Test
    void clientsBlockedOnALeaderThatStepsDownAreUnblocked(@TempDir Path dir) throws Exception {
        try (ReplicatedCluster cluster = ReplicatedCluster.start(dir, false)) {
            int leader = cluster.awaitLeader(-1);
            // The command timeout outlasts a step-down on a loaded machine; the future's bound detects a hang.
            RedisURI uri = Lettuce.uri(cluster.clientPorts[leader])
                    .withTimeout(Duration.ofMillis(2 * ReplicatedCluster.WAIT_MILLIS)).build();
            try (Lettuce client = Lettuce.connect(uri, ProtocolVersion.RESP2)) {
                ReplicatedCluster.retrying(() -> client.sync().set("ready", "1")); // the leader is caught up
                RedisFuture<KeyValue<String, String>> pop = client.async().blpop(0, "q");
                assertTrue(cluster.server(leader).keyspace().blocking()
                        .awaitWaiting("q".getBytes(StandardCharsets.UTF_8), 1, ReplicatedCluster.WAIT_MILLIS));
                for (int i = 0; i < ReplicatedCluster.SIZE; i++) {
                    if (i != leader) {
                        cluster.stop(i); // without a majority the leader steps down
                    }
                }
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> pop.get(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS));
                assertInstanceOf(RedisCommandExecutionException.class, e.getCause());
                assertEquals("UNBLOCKED force unblock from blocking operation, instance state changed "
                        + "(master -> replica?)", e.getCause().getMessage());
                assertEquals(0, cluster.server(leader).keyspace().blocking().blockedCount());
            }
        }
    }
}
