package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Snapshots of groups sharing one database per machine (the server's cluster mode): group alpha owns the keys
 * in {@code ["a", "b")}, beta those in {@code ["b", "c")}, on three machines. Alpha's member on one machine is
 * stopped while beta goes on there, alpha's log is truncated past it by two snapshots, and the member comes
 * back: it installs alpha's snapshot, which replaces alpha's range only. While it installs (held after the
 * range deletion) beta's keys on that machine are all there; and if the machine crashes at any step of the
 * install, it restarts, loads the snapshot again and ends with every acknowledged write of both groups,
 * equal to the other machines.
 *
 * <p>What a crash keeps: each machine's Raft log and database live in a {@link CrashableFileSystem}, reduced
 * to what was synced and frozen at the crash point; jraft's snapshot directories stay on the real disk
 * (see {@code SnapshotInstallCrashTest} for why that is what a real crash keeps).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedSnapshotTest {
    private static final String ALPHA = "alpha";
    private static final String BETA = "beta";
    private static final HexFormat HEX = HexFormat.of();
    private static final int KEYS = 30;

    /** Where the machine installing alpha's snapshot dies; {@link #NONE}: it does not, its install is held. */
    enum CrashPoint {
        NONE(null),
        AFTER_APPLIED_ZERO(DbStateMachine.LoadStep.APPLIED_ZERO_STORED),
        AFTER_RANGES_DELETED(DbStateMachine.LoadStep.FAMILIES_CLEARED),
        AFTER_TABLES_INGESTED(DbStateMachine.LoadStep.TABLES_INGESTED);

        final DbStateMachine.LoadStep step;

        CrashPoint(DbStateMachine.LoadStep step) {
            this.step = step;
        }
    }

    private final List<String> addresses = new ArrayList<>();
    private final List<Machine> machines = new ArrayList<>();
    /** Every acknowledged write of both groups: hex key to hex value (the groups' ranges do not overlap). */
    private final Map<String, String> acked = new TreeMap<>();

    private static Db.Range range(String group) {
        return group.equals(ALPHA) ? new Db.Range(bytes("a"), bytes("b")) : new Db.Range(bytes("b"), bytes("c"));
    }

    /** One machine: its process (shared Raft log, port), its one database, and its member of each group. */
    private final class Machine {
        final String address;
        final Path dir;
        final CrashableFileSystem fs;
        ReplicationProcess process;
        Db db;
        ReplicatedDb alpha;
        ReplicatedDb beta;
        /** Steps of alpha's snapshot loads on this machine since it was last armed. */
        final List<DbStateMachine.LoadStep> steps = new CopyOnWriteArrayList<>();
        private volatile DbStateMachine.LoadStep crashAt;
        private volatile CompletableFuture<DbStateMachine.LoadStep> crashed = new CompletableFuture<>();
        private volatile CountDownLatch holdAfterRangesDeleted;
        private final CompletableFuture<Void> held = new CompletableFuture<>();

        Machine(String address, Path dir) {
            this.address = address;
            this.dir = dir;
            this.fs = new CrashableFileSystem(dir.resolve("groups"));
        }

        void open() throws IOException {
            process = ReplicationProcess.open(dir, address,
                    RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(1 << 20));
            db = Db.open(dir.resolve("db"), Options.defaults().withFileSystem(fs));
            beta = openGroup(BETA);
            alpha = openGroup(ALPHA);
        }

        ReplicatedDb openGroup(String group) throws IOException {
            return ReplicatedDb.openShared(process, group, addresses, TestCluster.fastOptions(), db,
                    () -> List.of(range(group)), group.equals(ALPHA) ? this::reached : DbStateMachine.LoadProbe.NONE);
        }

        void reached(DbStateMachine.LoadStep step) {
            steps.add(step);
            CountDownLatch hold = holdAfterRangesDeleted;
            if (hold != null && step == DbStateMachine.LoadStep.FAMILIES_CLEARED) {
                held.complete(null);
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (step == crashAt) {
                crashAt = null;
                fs.crash();
                crashed.complete(step);
                throw new IllegalStateException("simulated machine crash at " + step);
            }
        }

        /** Closes everything of the machine; after a crash its frozen storage refuses, as a dead machine's. */
        void kill() {
            for (AutoCloseable resource : new AutoCloseable[] {alpha, beta, db, process}) {
                try {
                    if (resource != null) {
                        resource.close();
                    }
                } catch (Exception expectedAfterACrash) {
                    // The storage is frozen: closing could not sync; the node and the port are released anyway.
                }
            }
            alpha = null;
            beta = null;
            db = null;
            process = null;
        }
    }

    @BeforeAll
    void start(@TempDir Path root) throws Exception {
        for (int i = 0; i < 3; i++) {
            addresses.add("127.0.0.1:" + LoopbackPorts.next());
        }
        for (String address : addresses) {
            Machine machine = new Machine(address, root.resolve(address.replace(':', '_')));
            machines.add(machine);
            machine.open();
        }
        for (int i = 0; i < KEYS; i++) {
            put(ALPHA, "a" + i, "v" + i);
            put(BETA, "b" + i, "v" + i);
        }
    }

    @AfterAll
    void stop() {
        machines.forEach(Machine::kill);
    }

    @ParameterizedTest
    @EnumSource(CrashPoint.class)
    void aFollowerInstallsItsGroupsRangesOnlyAndRecoversFromACrashAnywhereInTheInstall(CrashPoint point)
            throws Exception {
        ReplicatedDb alphaLeader = TestCluster.awaitLeader(() -> members(ALPHA));
        Machine lagging = machines.stream().filter(m -> m.alpha != alphaLeader).findFirst().orElseThrow();
        awaitConverged();
        long laggingApplied = lagging.alpha.stateMachine().appliedIndex();
        lagging.alpha.close();
        lagging.alpha = null; // beta goes on applying to this machine's database

        int round = point.ordinal();
        for (int i = 0; i < KEYS; i++) {
            switch ((i + round) % 3) {
                case 0 -> delete(ALPHA, "a" + i);
                case 1 -> put(ALPHA, "a" + i, "r" + round + "-" + i);
                default -> { }
            }
            put(BETA, "b" + i, "r" + round + "-" + i);
        }
        // jraft drops the log only up to the previous snapshot, so the second one compacts past the stop.
        for (ReplicatedDb member : members(ALPHA)) {
            member.snapshot();
        }
        put(ALPHA, "a-between", "snapshots" + round);
        for (ReplicatedDb member : members(ALPHA)) {
            member.snapshot();
        }
        put(ALPHA, "a-after", "snapshots" + round);
        ReplicatedDb alphaNow = TestCluster.awaitLeader(() -> members(ALPHA));
        assertTrue(alphaNow.firstLogIndex().orElseThrow() > laggingApplied + 1,
                "alpha's log starts past what the stopped member lacks");

        lagging.steps.clear();
        if (point == CrashPoint.NONE) {
            // beta applies on this machine at its own pace
            TestCluster.await("beta's acknowledged writes on the stopped member's machine",
                    () -> ackedIn(BETA).equals(within(scan(lagging.db), BETA)));
            CountDownLatch release = new CountDownLatch(1);
            lagging.holdAfterRangesDeleted = release;
            try {
                lagging.alpha = lagging.openGroup(ALPHA);
                lagging.held.get(WAIT_SECONDS, TimeUnit.SECONDS);
                Map<String, String> onMachine = scan(lagging.db);
                assertEquals(ackedIn(BETA), within(onMachine, BETA),
                        "beta's keys are all there during alpha's install");
                assertEquals(Map.of(), within(onMachine, ALPHA), "alpha's range is deleted before the tables go in");
            } finally {
                // released even when a check fails: a load held forever would keep the member from closing
                lagging.holdAfterRangesDeleted = null;
                release.countDown();
            }
        } else {
            lagging.crashed = new CompletableFuture<>();
            lagging.crashAt = point.step;
            lagging.alpha = lagging.openGroup(ALPHA);
            assertEquals(point.step, lagging.crashed.get(WAIT_SECONDS, TimeUnit.SECONDS));
            lagging.kill();
            for (int i = 0; i < 5; i++) {
                put(ALPHA, "a-down" + i, "x" + round);
                put(BETA, "b-down" + i, "x" + round);
            }
            lagging.steps.clear();
            lagging.fs.restart();
            lagging.open();
        }
        put(ALPHA, "a-back", "1");
        put(BETA, "b-back", "1");
        awaitConverged();
        assertEquals(1, lagging.alpha.snapshotsInstalled(), "the member installed alpha's snapshot once more");
        assertEquals(List.of(DbStateMachine.LoadStep.APPLIED_ZERO_STORED, DbStateMachine.LoadStep.FAMILIES_CLEARED,
                DbStateMachine.LoadStep.FAMILY_INGESTED, DbStateMachine.LoadStep.TABLES_INGESTED,
                DbStateMachine.LoadStep.INDEX_STORED), lagging.steps, "one whole load");
        assertEquals(0, lagging.beta.snapshotsInstalled(), "beta caught up from its own log");
    }

    /** Waits until every machine's database holds exactly the acknowledged writes of both groups. */
    private void awaitConverged() {
        for (Machine machine : machines) {
            TestCluster.await(machine.address + " holds every acknowledged write",
                    () -> machine.alpha != null && acked.equals(scan(machine.db)));
        }
    }

    private List<ReplicatedDb> members(String group) {
        List<ReplicatedDb> members = new ArrayList<>();
        for (Machine machine : machines) {
            ReplicatedDb member = group.equals(ALPHA) ? machine.alpha : machine.beta;
            if (member != null) {
                members.add(member);
            }
        }
        return members;
    }

    private void put(String group, String key, String value) throws Exception {
        TestCluster.onLeader(() -> members(group), leader -> leader.put(bytes(key), bytes(value)));
        acked.put(HEX.formatHex(bytes(key)), HEX.formatHex(bytes(value)));
    }

    private void delete(String group, String key) throws Exception {
        TestCluster.onLeader(() -> members(group), leader -> leader.delete(bytes(key)));
        acked.remove(HEX.formatHex(bytes(key)));
    }

    private Map<String, String> ackedIn(String group) {
        return within(acked, group);
    }

    /** The entries of {@code all} (hex keys) in {@code group}'s range. */
    private static Map<String, String> within(Map<String, String> all, String group) {
        Db.Range r = range(group);
        return new TreeMap<>(new TreeMap<>(all).subMap(HEX.formatHex(r.start()), HEX.formatHex(r.limit())));
    }

    /** The default family of a machine's database, hex key to hex value. */
    private static Map<String, String> scan(Db db) {
        Map<String, String> entries = new TreeMap<>();
        try (Snapshot snapshot = db.snapshot(); DbIterator it = db.iterator(ReadOptions.at(snapshot))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                entries.put(HEX.formatHex(it.key()), HEX.formatHex(it.value()));
            }
        } catch (UncheckedIOException | IllegalStateException closing) {
            return Map.of();
        }
        return entries;
    }
}
