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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A follower's machine crashes in the middle of installing the leader's snapshot, at each step of
 * {@code DbStateMachine.onSnapshotLoad}; restarted, it must load the snapshot again rather than trust the
 * half-loaded database, and end equal to the others (checksums of full scans) with every acknowledged write,
 * then go on applying new ones.
 *
 * <p>What the crash keeps: the member's Raft log and database are in a {@link CrashableFileSystem}, reduced to
 * what was synced, and nothing the member does after the crash point reaches it. jraft's snapshot directory
 * stays on the real disk, whole: by the time jraft calls {@code onSnapshotLoad} it has synced every copied
 * file (on close), synced the snapshot's meta, moved the finished snapshot into place atomically and synced
 * the parent directory, so a real crash at these points keeps it too. The dead member's node and process are
 * then shut down (freeing its port) while its storage stays frozen.
 *
 * <p>One group serves every case, each starting and ending converged: building a group and freeing a port
 * (bolt waits out Netty's 2 s quiet period) dominate the run time. So the follower is first stopped cleanly
 * as a group inside its running process (what the snapshot must then bring it: deletions and rewrites in
 * every family), and only the crash takes the process down.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SnapshotInstallCrashTest {
    /** Four families, so the snapshot has four tables and a crash can fall between two ingestions. */
    private static final List<String> FAMILIES = List.of(ReplicatedBatch.DEFAULT_FAMILY, "side", "late", "extra");
    private static final HexFormat HEX = HexFormat.of();
    private static final int KEYS = 40;

    /**
     * Where the machine dies. Not a case of its own: a crash just after the snapshot's applied index is stored,
     * since that write is not synced and a crash keeps only what was, leaves what {@link #AFTER_ALL_TABLES}
     * leaves; a crash that happens to keep it leaves a finished load.
     */
    enum CrashPoint {
        AFTER_APPLIED_ZERO(DbStateMachine.LoadStep.APPLIED_ZERO_STORED),
        AFTER_FAMILIES_CLEARED(DbStateMachine.LoadStep.FAMILIES_CLEARED),
        AFTER_FIRST_OF_FOUR_TABLES(DbStateMachine.LoadStep.FAMILY_INGESTED),
        AFTER_ALL_TABLES(DbStateMachine.LoadStep.TABLES_INGESTED);

        final DbStateMachine.LoadStep step;

        CrashPoint(DbStateMachine.LoadStep step) {
            this.step = step;
        }
    }

    private final Map<String, Machine> machines = new ConcurrentHashMap<>();
    /** One group for all cases: each starts converged and ends converged, with one member crashed between. */
    private TestCluster cluster;
    /** Every acknowledged write: family to hex key to hex value, as {@link TestCluster#scan} reports. */
    private final Map<String, Map<String, String>> acked = new TreeMap<>();

    /** One member's storage, and the crash point armed for its next snapshot load. */
    private static final class Machine {
        final CrashableFileSystem fs;
        /** The member's process (its shared Raft log and port): outlives a clean stop of the group, not a crash. */
        ReplicationProcess process;
        /** Steps of the snapshot loads this machine ran since it was last armed or disarmed. */
        final List<DbStateMachine.LoadStep> steps = new CopyOnWriteArrayList<>();
        private volatile CrashPoint armed;
        private volatile CompletableFuture<DbStateMachine.LoadStep> crashed = new CompletableFuture<>();

        Machine(Path snapshotDir) {
            fs = new CrashableFileSystem(snapshotDir);
        }

        /** Crashes the machine when its next load reaches {@code point}; the future completes then. */
        CompletableFuture<DbStateMachine.LoadStep> arm(CrashPoint point) {
            steps.clear();
            crashed = new CompletableFuture<>();
            armed = point;
            return crashed;
        }

        /** Powers the machine on again, without a crash armed. */
        void restart() {
            armed = null;
            steps.clear();
            fs.restart();
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
        if (machine.process == null) {
            machine.process = ReplicationProcess.open(dataDir, address,
                    RaftLogOptions.defaults().withFileSystem(machine.fs).withTargetFileSize(1 << 20));
        }
        ReplicatedDbOptions options = TestCluster.fastOptions()
                .withDbOptions(Options.defaults().withFileSystem(machine.fs));
        return ReplicatedDb.open(machine.process, TestCluster.GROUP, peers, options, machine::reached);
    }

    @BeforeAll
    void startGroup(@TempDir Path dir) throws Exception {
        cluster = new TestCluster(dir, 3, this::open);
        List<ReplicatedBatch> batches = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            ReplicatedBatch batch = new ReplicatedBatch();
            for (String family : FAMILIES) {
                put(batch, family, "k" + i, "v" + i);
            }
            batches.add(batch);
        }
        write(batches);
    }

    @AfterAll
    void stopGroup() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        List<ReplicationProcess> processes = new ArrayList<>();
        for (Machine machine : machines.values()) {
            processes.add(machine.process);
        }
        TestCluster.closeAll(processes);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void followerCrashedMidInstallReloadsAndConverges(CrashPoint point) throws Exception {
        ReplicatedDb leader = cluster.awaitLeader();
        cluster.awaitCaughtUp();
        String lagging = cluster.running().stream().filter(m -> m != leader).findFirst().orElseThrow().address();
        long laggingApplied = cluster.member(lagging).stateMachine().appliedIndex();
        cluster.stop(lagging);

        // What the lagging follower must get from the snapshot: in every family a third of the keys deleted
        // and a third rewritten (each case a different third, so keys deleted by one case come back in the next).
        int round = point.ordinal();
        List<ReplicatedBatch> changes = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            ReplicatedBatch batch = new ReplicatedBatch();
            for (String family : FAMILIES) {
                switch ((i + round) % 3) {
                    case 0 -> delete(batch, family, "k" + i);
                    case 1 -> put(batch, family, "k" + i, "r" + round + "-" + i);
                    default -> { }
                }
            }
            if (batch.count() > 0) {
                changes.add(batch);
            }
        }
        write(changes);
        // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
        for (ReplicatedDb m : cluster.running()) {
            m.snapshot();
        }
        write(put(new ReplicatedBatch(), "side", "between", "snapshots"));
        for (ReplicatedDb m : cluster.running()) {
            m.snapshot();
        }
        // The truncation is queued behind the snapshot on the log's disk thread; this write is appended after it.
        ReplicatedDb acknowledged = write(put(new ReplicatedBatch(), "late", "after", "snapshots"));
        assertTrue(acknowledged.firstLogIndex().orElseThrow() > laggingApplied + 1,
                "the leader's log starts past what the stopped follower lacks");

        Machine machine = machines.get(lagging);
        CompletableFuture<DbStateMachine.LoadStep> crashed = machine.arm(point);
        cluster.start(lagging, cluster.addresses());
        assertEquals(point.step, crashed.get(WAIT_SECONDS, TimeUnit.SECONDS));
        if (point == CrashPoint.AFTER_FIRST_OF_FOUR_TABLES) {
            assertEquals(List.of(DbStateMachine.LoadStep.APPLIED_ZERO_STORED,
                    DbStateMachine.LoadStep.FAMILIES_CLEARED, DbStateMachine.LoadStep.FAMILY_INGESTED),
                    machine.steps, "the crash fell after the first of the snapshot's tables");
        }
        kill(lagging);

        // The group goes on without it.
        List<ReplicatedBatch> whileDown = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            whileDown.add(put(new ReplicatedBatch(), FAMILIES.get(i % FAMILIES.size()), "down" + i, "x" + round));
        }
        write(whileDown);

        machine.restart();
        ReplicatedDb back = cluster.start(lagging, cluster.addresses());
        write(put(new ReplicatedBatch(), ReplicatedBatch.DEFAULT_FAMILY, "after-restart", "1"));
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
        // Counted on a member that ran throughout: a write leadership moved under may be in the log twice.
        DbStateMachine witness = cluster.running().stream().filter(m -> m != back).findFirst().orElseThrow()
                .stateMachine();
        long witnessBefore = witness.entriesApplied();
        long appliedBefore = back.stateMachine().entriesApplied();
        List<ReplicatedBatch> later = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            later.add(put(new ReplicatedBatch(), "extra", "later" + i, "y" + round));
        }
        write(later);
        cluster.awaitCaughtUp();
        long committed = witness.entriesApplied() - witnessBefore;
        assertTrue(committed >= 10, "every acknowledged write committed");
        assertEquals(appliedBefore + committed, back.stateMachine().entriesApplied(),
                "the restarted member applied each new write");
        assertEquals(acked, scan(back), "the restarted member holds every acknowledged write");
        for (ReplicatedDb m : cluster.running()) {
            assertEquals(checksum(acked), checksum(scan(m)), "replica " + m.address());
        }
    }

    /**
     * Shuts down the crashed member's node and its process, freeing the port. Its storage is frozen, so
     * closing writes nothing; the database and the shared log report that they could not sync, as a dead
     * machine's would.
     */
    private void kill(String address) {
        try {
            cluster.stop(address);
        } catch (IOException | UncheckedIOException expected) {
            // The frozen storage refused the close; the node is stopped and the group released all the same.
        }
        Machine machine = machines.get(address);
        try {
            machine.process.close();
        } catch (IOException | UncheckedIOException expected) {
            // Likewise for the shared log; the RPC server stopped before it.
        }
        machine.process = null;
    }

    private ReplicatedBatch put(ReplicatedBatch batch, String family, String key, String value) {
        return batch.put(family, bytes(key), bytes(value));
    }

    private ReplicatedBatch delete(ReplicatedBatch batch, String family, String key) {
        return batch.delete(family, bytes(key));
    }

    /** Writes the batch through the leader of the moment, records its effects, and returns that leader. */
    private ReplicatedDb write(ReplicatedBatch batch) throws Exception {
        ReplicatedDb acknowledged = cluster.write(batch);
        batch.ops().forEach(this::record);
        return acknowledged;
    }

    /**
     * Writes the batches pipelined, as if one after another ({@link TestCluster#writeAll}) and, once every
     * one is acknowledged, records their effects in that order.
     */
    private void write(List<ReplicatedBatch> batches) throws Exception {
        cluster.writeAll(batches);
        for (ReplicatedBatch batch : batches) {
            batch.ops().forEach(this::record);
        }
    }

    private void record(ReplicatedBatch.Op op) {
        Map<String, String> family = acked.computeIfAbsent(op.family(), f -> new TreeMap<>());
        if (op.value() == null) {
            family.remove(HEX.formatHex(op.key()));
        } else {
            family.put(HEX.formatHex(op.key()), HEX.formatHex(op.value()));
        }
        if (family.isEmpty()) {
            acked.remove(op.family());
        }
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
