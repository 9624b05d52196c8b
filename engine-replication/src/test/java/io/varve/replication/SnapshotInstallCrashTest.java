package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.Options;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A follower's machine crashes in the middle of installing the leader's snapshot, at each step of
 * {@code DbStateMachine.onSnapshotLoad}; restarted, it must load the snapshot again rather than trust the
 * half-loaded database, and end equal to the others with every acknowledged write.
 *
 * <p>What the crash keeps: the member's Raft log and database are in a {@link CrashableFileSystem} reduced
 * to what was synced, and nothing the member does after the crash point reaches it. jraft's snapshot directory
 * stays on the real disk, whole: by the time jraft calls {@code onSnapshotLoad} it has synced every copied
 * file (on close), synced the snapshot's meta, moved the finished snapshot into place atomically and synced
 * the parent directory, so a real crash at these points keeps it too. The dead member's node is then shut
 * down (its port freed), which cannot write anything since its storage is frozen.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotInstallCrashTest {
    /** Four families, so the snapshot has four tables and a crash can fall between two ingestions. */
    private static final List<String> FAMILIES = List.of(ReplicatedBatch.DEFAULT_FAMILY, "side", "late", "extra");
    private static final HexFormat HEX = HexFormat.of();

    enum CrashPoint {
        AFTER_APPLIED_ZERO(DbStateMachine.LoadStep.APPLIED_ZERO_STORED),
        AFTER_FAMILIES_CLEARED(DbStateMachine.LoadStep.FAMILIES_CLEARED),
        AFTER_FIRST_OF_FOUR_TABLES(DbStateMachine.LoadStep.FAMILY_INGESTED),
        AFTER_ALL_TABLES(DbStateMachine.LoadStep.TABLES_INGESTED),
        AFTER_UNSYNCED_FINAL_INDEX(DbStateMachine.LoadStep.INDEX_STORED);

        final DbStateMachine.LoadStep step;

        CrashPoint(DbStateMachine.LoadStep step) {
            this.step = step;
        }
    }

    @TempDir
    Path dir;

    private final Map<String, Machine> machines = new ConcurrentHashMap<>();
    /** Every acknowledged write: family to hex key to hex value, as {@link TestCluster#scan} reports. */
    private final Map<String, Map<String, String>> acked = new TreeMap<>();

    /** One member's storage, and the crash point armed for its next snapshot load. */
    private static final class Machine {
        final CrashableFileSystem fs;
        volatile CrashPoint armed;
        final CompletableFuture<DbStateMachine.LoadStep> crashed = new CompletableFuture<>();
        /** Steps of snapshot loads this machine ran since it was last armed or disarmed. */
        final List<DbStateMachine.LoadStep> steps = new CopyOnWriteArrayList<>();

        Machine(Path snapshotDir) {
            fs = new CrashableFileSystem(snapshotDir);
        }

        void reached(DbStateMachine.LoadStep step) {
            steps.add(step);
            CrashPoint point = armed;
            if (point != null && point.step == step) {
                armed = null;
                fs.crash();
                crashed.complete(step);
                throw new IllegalStateException("simulated machine crash at " + step);
            }
        }
    }

    private ReplicatedDb open(String address, List<String> peers, Path dataDir) throws IOException {
        Machine machine = machines.computeIfAbsent(address,
                a -> new Machine(dataDir.resolve("groups").resolve(TestCluster.GROUP).resolve("snapshot")));
        ReplicatedDbOptions options = TestCluster.fastOptions()
                .withDbOptions(Options.defaults().withFileSystem(machine.fs));
        return ReplicatedDb.open(TestCluster.GROUP, address, peers, dataDir,
                RaftLogOptions.defaults().withFileSystem(machine.fs).withTargetFileSize(1 << 20), options,
                machine::reached);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void followerCrashedMidInstallReloadsAndConverges(CrashPoint point) throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 3, this::open)) {
            ReplicatedDb leader = cluster.awaitLeader();
            for (int i = 0; i < 40; i++) {
                ReplicatedBatch batch = new ReplicatedBatch();
                for (String family : FAMILIES) {
                    put(batch, family, "k" + i, "v" + i);
                }
                write(leader, batch);
            }
            cluster.awaitCaughtUp();
            String lagging = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow()
                    .address();
            long laggingApplied = cluster.member(lagging).stateMachine().appliedIndex();
            cluster.stop(lagging);

            // Changes the lagging follower must get from the snapshot: deletions and overwrites in every family.
            for (int i = 0; i < 40; i += 2) {
                ReplicatedBatch batch = new ReplicatedBatch();
                for (String family : FAMILIES) {
                    delete(batch, family, "k" + i);
                    put(batch, family, "k" + (i + 1), "second-" + i);
                }
                write(leader, batch);
            }
            // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            write(leader, put(new ReplicatedBatch(), "side", "between", "snapshots"));
            for (ReplicatedDb m : cluster.running()) {
                m.snapshot();
            }
            // The truncation is queued behind the snapshot on the log's disk thread; this write is appended after it.
            write(leader, put(new ReplicatedBatch(), "late", "after", "snapshots"));
            assertTrue(leader.firstLogIndex().orElseThrow() > laggingApplied + 1,
                    "the leader's log starts past what the stopped follower lacks");

            Machine machine = machines.get(lagging);
            machine.armed = point;
            cluster.start(lagging, cluster.addresses());
            assertEquals(point.step, machine.crashed.get(WAIT_SECONDS, TimeUnit.SECONDS));
            if (point == CrashPoint.AFTER_FIRST_OF_FOUR_TABLES) {
                assertEquals(List.of(DbStateMachine.LoadStep.APPLIED_ZERO_STORED,
                        DbStateMachine.LoadStep.FAMILIES_CLEARED, DbStateMachine.LoadStep.FAMILY_INGESTED),
                        machine.steps, "the crash fell after the first of the snapshot's tables");
            }
            kill(cluster, lagging);

            // The group goes on without it.
            for (int i = 0; i < 10; i++) {
                write(leader, put(new ReplicatedBatch(), FAMILIES.get(i % FAMILIES.size()), "down" + i, "x" + i));
            }

            machine.steps.clear();
            machine.fs.restart();
            ReplicatedDb back = cluster.start(lagging, cluster.addresses());
            write(leader, put(new ReplicatedBatch(), ReplicatedBatch.DEFAULT_FAMILY, "after-restart", "1"));
            cluster.awaitCaughtUp();
            assertEquals(1, back.stateMachine().snapshotsLoaded(),
                    "the restarted member loaded the snapshot again instead of trusting its database");
            assertEquals(List.of(DbStateMachine.LoadStep.APPLIED_ZERO_STORED,
                    DbStateMachine.LoadStep.FAMILIES_CLEARED, DbStateMachine.LoadStep.FAMILY_INGESTED,
                    DbStateMachine.LoadStep.FAMILY_INGESTED, DbStateMachine.LoadStep.FAMILY_INGESTED,
                    DbStateMachine.LoadStep.FAMILY_INGESTED, DbStateMachine.LoadStep.TABLES_INGESTED,
                    DbStateMachine.LoadStep.INDEX_STORED), machine.steps, "one whole load of four tables");

            ReplicatedDb current = cluster.awaitLeader();
            assertEquals(acked, scan(current), "the leader holds exactly the acknowledged writes");
            String expected = checksum(scan(current));
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(expected, checksum(scan(m)), "replica " + m.address());
            }

            // The restarted member goes on applying: new writes reach it through the log.
            long appliedBefore = back.stateMachine().entriesApplied();
            for (int i = 0; i < 10; i++) {
                write(current, put(new ReplicatedBatch(), "extra", "later" + i, "y" + i));
            }
            cluster.awaitCaughtUp();
            assertEquals(appliedBefore + 10, back.stateMachine().entriesApplied(),
                    "the restarted member applied each new write");
            assertEquals(acked, scan(back), "the restarted member holds every acknowledged write");
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(checksum(acked), checksum(scan(m)), "replica " + m.address());
            }
        }
    }

    /**
     * Shuts down the crashed member's node and frees its port. Its storage is frozen, so closing writes
     * nothing; the database reports that it could not sync its log, which is expected of a dead machine.
     */
    private static void kill(TestCluster cluster, String address) {
        try {
            cluster.stop(address);
        } catch (IOException | UncheckedIOException e) {
            assertTrue(e.getMessage() != null, "the frozen storage refused the close: " + e);
        }
    }

    private ReplicatedBatch put(ReplicatedBatch batch, String family, String key, String value) {
        return batch.put(family, bytes(key), bytes(value));
    }

    private ReplicatedBatch delete(ReplicatedBatch batch, String family, String key) {
        return batch.delete(family, bytes(key));
    }

    /** Writes through the leader and, once acknowledged, records the batch's effects. */
    private void write(ReplicatedDb leader, ReplicatedBatch batch) {
        leader.write(batch);
        batch.ops().forEach(op -> {
            Map<String, String> family = acked.computeIfAbsent(op.family(), f -> new TreeMap<>());
            if (op.value() == null) {
                family.remove(HEX.formatHex(op.key()));
            } else {
                family.put(HEX.formatHex(op.key()), HEX.formatHex(op.value()));
            }
            if (family.isEmpty()) {
                acked.remove(op.family());
            }
        });
    }

    /** SHA-256 over every family, key and value in order, hex: equal scans give equal checksums. */
    private static String checksum(Map<String, Map<String, String>> scan) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        scan.forEach((family, entries) -> {
            digest.update(("family " + family + "\n").getBytes(StandardCharsets.UTF_8));
            entries.forEach((key, value) -> digest.update((key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8)));
        });
        return HEX.formatHex(digest.digest());
    }
}
