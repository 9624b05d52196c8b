package io.varve.replication;

import io.varve.base.LoopbackPorts;
import io.varve.raftlog.RaftLogOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A member stands for its first election after a fifth of the election timeout and uses the whole timeout
 * once it knows a leader, so only a starting group elects early; failover keeps the configured timeout.
 */
class FirstElectionTest {

    @Test
    void theFirstElectionWaitsAFifthOfTheTimeoutAndLaterOnesTheWholeTimeout() {
        assertEquals(600, ReplicatedDb.firstElectionTimeoutMs(3000));
        assertEquals(200, ReplicatedDb.firstElectionTimeoutMs(1000));
        assertEquals(100, ReplicatedDb.firstElectionTimeoutMs(300)); // never below 100 ms ...
        assertEquals(50, ReplicatedDb.firstElectionTimeoutMs(50)); // ... nor above the timeout itself
    }

    @Test
    void aMemberThatKnowsItsLeaderUsesTheConfiguredTimeout(@TempDir Path dir) throws Exception {
        String address = "127.0.0.1:" + LoopbackPorts.next();
        ReplicatedDbOptions options = TestCluster.fastOptions().withElectionTimeoutMs(2500);
        try (ReplicationProcess process = ReplicationProcess.open(dir, address, 0, RaftLogOptions.defaults())) {
            ReplicatedDb db = ReplicatedDb.open(process, "first-election", List.of(address), options);
            try {
                db.stateMachine().leadership().get(TestCluster.WAIT_SECONDS, TimeUnit.SECONDS);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TestCluster.WAIT_SECONDS);
                // The reset runs on jraft's state-machine thread right after the leader is announced.
                while (db.node().getOptions().getElectionTimeoutMs() != 2500) {
                    if (System.nanoTime() > deadline) {
                        throw new TimeoutException("the election timeout stayed "
                                + db.node().getOptions().getElectionTimeoutMs());
                    }
                    Thread.onSpinWait();
                }
            } finally {
                db.close();
            }
        }
    }
}
