package io.varve.replication;

import static io.varve.replication.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read on a follower while it installs a snapshot, through {@link ReplicatedDb#readWhileNoSnapshotLoads} (the
 * path the server's READONLY reads take on a follower): the load is held where the old state is cleared and
 * nothing is ingested yet, and the read must wait for the load rather than see that half state.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotLoadReadTest {
    private static final int KEYS = 20;
    private static final String SIDE = "side";

    @TempDir
    Path dir;

    /** Each member's process, kept across a clean stop of its group so it can be started again on it. */
    private final Map<String, ReplicationProcess> processes = new ConcurrentHashMap<>();
    private volatile String holding;
    private final CountDownLatch cleared = new CountDownLatch(1);
    private final CountDownLatch resume = new CountDownLatch(1);

    @Test
    void aReadWaitsForTheLoadAndNeverSeesTheClearedState() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, this::open)) {
            List<ReplicatedBatch> batches = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                batches.add(new ReplicatedBatch().put(bytes("k" + i), bytes("v" + i))
                        .put(SIDE, bytes("s" + i), bytes("v" + i)));
            }
            cluster.writeAll(batches);
            ReplicatedDb leader = cluster.awaitLeader();
            cluster.awaitCaughtUp();
            String lagging = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow()
                    .address();
            cluster.stop(lagging);

            for (int i = 0; i < KEYS; i += 2) {
                cluster.write(new ReplicatedBatch().delete(bytes("k" + i)).put(SIDE, bytes("s" + i), bytes("new")));
            }
            // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            cluster.write(new ReplicatedBatch().put(bytes("between"), bytes("snapshots")));
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            cluster.write(new ReplicatedBatch().put(bytes("after"), bytes("snapshots")));

            holding = lagging;
            ReplicatedDb follower;
            try {
                follower = cluster.start(lagging, cluster.addresses());
                cleared.await();
                assertTrue(TestCluster.scan(follower.database()).isEmpty(),
                        "held where the database is cleared: a read of it now would see nothing");

                CompletableFuture<Map<String, Map<String, String>>> read = new CompletableFuture<>();
                Thread reader = new Thread(() -> read.complete(
                        follower.readWhileNoSnapshotLoads(() -> TestCluster.scan(follower.database()))),
                        "readonly-read");
                reader.start();
                // Either the read has already run (it must not have: the assertions below catch it) or it waits.
                TestCluster.await("the read either ran or waits for the load",
                        () -> read.isDone() || reader.getState() == Thread.State.WAITING);
                resume.countDown();

                Map<String, Map<String, String>> seen = read.get();
                HexFormat hex = HexFormat.of();
                assertEquals(hex.formatHex(bytes("v1")), seen.getOrDefault(ReplicatedBatch.DEFAULT_FAMILY, Map.of())
                        .get(hex.formatHex(bytes("k1"))), "a key of every state, old and new: " + seen);
                assertEquals(hex.formatHex(bytes("new")), seen.getOrDefault(SIDE, Map.of())
                        .get(hex.formatHex(bytes("s0"))), "the snapshot's state, not the old one: " + seen);
            } finally {
                resume.countDown();
            }
            cluster.awaitCaughtUp();
            assertEquals(1, follower.stateMachine().snapshotsLoaded(), "the follower installed the snapshot");
        }
    }

    @AfterEach
    void closeProcesses() throws IOException {
        TestCluster.closeAll(new ArrayList<>(processes.values()));
    }

    private ReplicatedDb open(String address, List<String> peers, Path dataDir) throws IOException {
        ReplicationProcess process = processes.get(address);
        if (process == null) {
            process = ReplicationProcess.open(dataDir, address, RaftLogOptions.defaults());
            processes.put(address, process);
        }
        return ReplicatedDb.open(process, TestCluster.GROUP, peers, TestCluster.fastOptions(), step -> {
            if (step == DbStateMachine.LoadStep.FAMILIES_CLEARED && address.equals(holding)) {
                cleared.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        });
    }
}
