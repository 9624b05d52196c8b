package io.varve.server.cluster;

import io.varve.base.LoopbackPorts;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.ingest.IngestOptions;
import io.varve.replication.ReplicatedDb;
import io.varve.replication.ReplicationException;
import io.varve.server.replica.ReplicaNode;
import io.varve.server.replica.ReplicationSettings;
import io.varve.server.store.Database;
import io.varve.server.store.HashSlot;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots per group on three cluster nodes in this JVM (three groups, every node a member of each, one
 * database per node). While node 2 is stopped, slots move both ways between groups 0 and 1 (written before
 * and after each move) and group 0's log is truncated past it. A group's snapshot holds exactly the records
 * of its slots and of the slots it handed away (metadata and subkeys); node 2 returns, installs group 0's
 * snapshot — replacing those slots' ranges only, taking over the slots group 1 handed to group 0 once group
 * 1, catching up from its log, has fenced them there — and catches up the other groups from their logs. It
 * then holds exactly what the others hold, and each of its slot gates knows what the others' know.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class GroupSnapshotTest {

    private static final int NODES = 3;
    private static final int GROUPS = 3;
    private static final int KEYS = 90;
    private static final HexFormat HEX = HexFormat.of();
    /** Slots group 0 hands to group 1 while node 2 is down, and slots group 1 hands to group 0. */
    private static final int[] TO_GROUP_1 = {0, 1999};
    private static final int[] TO_GROUP_0 = {5462, 7461};
    private static final int MOVED_KEYS = 6;

    private final String[] raft = new String[NODES];
    private final ClusterNode[] nodes = new ClusterNode[NODES];
    private Path root;
    private Map<String, String> peers;

    @Test
    void aGroupsSnapshotHoldsItsSlotsAndAFollowerFarBehindInstallsItWithoutTouchingOtherGroups(@TempDir Path dir)
            throws Exception {
        root = dir;
        peers = new LinkedHashMap<>();
        for (int i = 0; i < NODES; i++) {
            raft[i] = "127.0.0.1:" + LoopbackPorts.next();
            peers.put(raft[i], "127.0.0.1:" + LoopbackPorts.next());
        }
        try {
            for (int i = 0; i < NODES; i++) {
                open(i);
            }
            for (int i = 0; i < KEYS; i++) {
                putString("k" + i, "v" + i);
                putHash("h" + i, "f", "x" + i);
            }
            for (int i = 0; i < MOVED_KEYS; i++) {
                putString(keyIn(TO_GROUP_1, "out" + i), "before the move " + i);
                putString(keyIn(TO_GROUP_0, "in" + i), "before the move " + i);
            }
            awaitApplied();
            nodes[2].close();
            nodes[2] = null;

            // What node 2 misses: deletions and rewrites in every group, and new keys.
            for (int i = 0; i < KEYS; i += 3) {
                delete("k" + i);
                putString("k" + (i + 1), "again" + i);
                putHash("h" + (i + 2), "g", "new" + i);
                putString("new" + i, "n" + i);
            }
            // Group 0's last writes to slots it then hands to group 1, and group 1's to slots it hands to group
            // 0; then each new owner writes them.
            for (int i = 0; i < MOVED_KEYS; i++) {
                putString(keyIn(TO_GROUP_1, "out" + i), "group 0's last " + i);
                putString(keyIn(TO_GROUP_0, "in" + i), "group 1's last " + i);
            }
            moveSlots(TO_GROUP_1, 1);
            moveSlots(TO_GROUP_0, 0);
            for (int i = 0; i < MOVED_KEYS; i += 2) {
                putString(keyIn(TO_GROUP_1, "out" + i), "group 1's first " + i);
                putString(keyIn(TO_GROUP_0, "in" + i), "group 0's first " + i);
            }
            // Group 0's log is cut past what node 2 lacks: jraft drops it up to the previous snapshot.
            snapshotGroup(0);
            putString(keyOfGroup(0, "between"), "snapshots");
            snapshotGroup(0);
            awaitApplied();
            Map<String, String> snapshot = newestSnapshot(0, dir.resolve("snapshot-check"));
            BitSet carried = nodes[0].groups().gate(0).accepted();
            carried.or(slots(TO_GROUP_1));
            assertTrue(nodes[0].groups().gate(0).accepts(TO_GROUP_0[0]) && !nodes[0].groups().gate(0).accepts(0));
            Map<String, String> group0 = keysOf(nodes[0].database(), carried);
            assertEquals(group0, snapshot, "group 0's snapshot holds the records of its slots and of those it "
                    + "handed away as node 0 holds them");
            assertTrue(snapshot.keySet().stream().anyMatch(k -> k.startsWith("4d"))
                    && snapshot.keySet().stream().anyMatch(k -> k.startsWith("53")), "metadata and subkeys");
            assertTrue(snapshot.keySet().stream().anyMatch(k -> slots(TO_GROUP_1).get(KeyEncoding.slotOf(HEX.parseHex(k)))),
                    "records of the slots group 0 handed away");
            putString(keyOfGroup(0, "after"), "snapshots");

            open(2);
            for (int g = 0; g < GROUPS; g++) {
                putString(keyOfGroup(g, "back"), "1");
            }
            awaitApplied();
            assertEquals(1, nodes[2].group(0).snapshotsInstalled(), "node 2 installed group 0's snapshot");
            assertEquals(0, nodes[2].group(1).snapshotsInstalled(), "group 1 caught up from its log");
            assertEquals(0, nodes[2].group(2).snapshotsInstalled(), "group 2 caught up from its log");
            BitSet all = new BitSet();
            all.set(0, HashSlot.SLOTS);
            Map<String, String> expected = keysOf(nodes[0].database(), all);
            for (int i = 1; i < NODES; i++) {
                assertEquals(expected, keysOf(nodes[i].database(), all), "node " + i + " holds what node 0 holds");
                for (int g = 0; g < GROUPS; g++) {
                    assertEquals(nodes[0].groups().gate(g).state(), nodes[i].groups().gate(g).state(),
                            "node " + i + "'s gate of group " + g);
                }
            }
            assertEquals("group 0's first 0", stringValue(nodes[2], keyIn(TO_GROUP_0, "in0")));
            assertEquals("group 1's last 1", stringValue(nodes[2], keyIn(TO_GROUP_0, "in1")),
                    "group 1's write before its fence, missed by node 2, is there");
            assertEquals("group 0's last 1", stringValue(nodes[2], keyIn(TO_GROUP_1, "out1")),
                    "group 0's write before its fence, missed by node 2, is there");
            assertNull(nodes[2].database().get(Database.SLOTTED.metadataKey(bytes("k0"))),
                    "a key deleted while node 2 was down is gone there");
            assertFalse(expected.isEmpty());
        } finally {
            for (int i = 0; i < NODES; i++) {
                if (nodes[i] != null) {
                    nodes[i].close();
                }
            }
        }
    }

    /** Moves {@code range} to {@code group} through the metadata group's leader, and waits for it to complete. */
    private void moveSlots(int[] range, int group) throws TimeoutException {
        await(() -> {
            for (ClusterNode node : nodes) {
                if (node != null && node.meta().isLeader()) {
                    try {
                        return "OK".equals(node.moveSlots(range[0], range[1], group, null, false));
                    } catch (RuntimeException notNow) {
                        return false;
                    }
                }
            }
            return false;
        }, "a move of slots " + range[0] + "-" + range[1]);
    }

    private static BitSet slots(int[] range) {
        BitSet slots = new BitSet();
        slots.set(range[0], range[1] + 1);
        return slots;
    }

    /** A key of a slot in {@code range}: {@code name} under a hash tag hashing there. */
    private static String keyIn(int[] range, String name) {
        for (int t = 0; ; t++) {
            String key = "{t" + t + "}" + name;
            int slot = HashSlot.of(bytes(key));
            if (slot >= range[0] && slot <= range[1]) {
                return key;
            }
        }
    }

    private static String stringValue(ClusterNode node, String key) {
        byte[] stored = node.database().get(Database.SLOTTED.metadataKey(bytes(key)));
        return stored == null ? null : new String(Metadata.decode(stored).value(), StandardCharsets.UTF_8);
    }

    private void open(int i) throws IOException {
        ReplicationSettings settings = new ReplicationSettings(raft[i], Map.copyOf(peers), false, 0, 2000, 0);
        ReplicaNode node = ClusterNode.open(settings, GROUPS, false, root.resolve("node" + i), Options.defaults());
        nodes[i] = (ClusterNode) node;
    }

    /** A key of group {@code group} now: {@code name} under a hash tag hashing into its slots. */
    private String keyOfGroup(int group, String name) {
        for (int t = 0; ; t++) {
            String key = "{t" + t + "}" + name;
            if (nodes[0].topology().slots().groupOf(HashSlot.of(bytes(key))) == group) {
                return key;
            }
        }
    }

    private void putString(String key, String value) throws TimeoutException {
        write(key, new WriteBatch().put(Database.SLOTTED.metadataKey(bytes(key)),
                Metadata.string(bytes(value), 0).encode()));
    }

    /** A hash with one field, at a version of its own: its metadata and a subkey, in one batch. */
    private void putHash(String key, String field, String value) throws TimeoutException {
        long version = System.nanoTime();
        write(key, new WriteBatch()
                .put(Database.SLOTTED.metadataKey(bytes(key)), Metadata.collection(RedisType.HASH, 0, version, 1).encode())
                .put(Database.SLOTTED.subkey(bytes(key), version, bytes(field)), bytes(value)));
    }

    private void delete(String key) throws TimeoutException {
        write(key, new WriteBatch().delete(Database.SLOTTED.metadataKey(bytes(key))));
    }

    /** Writes through the leader of the group whose gate accepts the key's slot there, wherever it is now. */
    private void write(String key, WriteBatch batch) throws TimeoutException {
        int slot = HashSlot.of(bytes(key));
        await(() -> {
            for (ClusterNode node : nodes) {
                int group = node == null ? -1 : node.topology().slots().groupOf(slot);
                if (node != null && node.group(group).isLeader() && node.groups().gate(group).accepts(slot)) {
                    try {
                        node.group(group).write(batch);
                        return true;
                    } catch (ReplicationException leadershipMoved) {
                        return false;
                    }
                }
            }
            return false;
        }, "a write to slot " + slot);
    }

    /** Snapshots {@code group} on every running node, once each has applied everything committed. */
    private void snapshotGroup(int group) throws TimeoutException {
        awaitApplied();
        for (ClusterNode node : nodes) {
            if (node != null) {
                node.group(group).snapshot();
            }
        }
    }

    /** Waits until every running member of every group has applied everything committed. */
    private void awaitApplied() throws TimeoutException {
        for (ClusterNode node : nodes) {
            for (int g = 0; node != null && g < GROUPS; g++) {
                ReplicatedDb member = node.group(g);
                await(() -> {
                    try {
                        member.awaitReadIndex();
                        return true;
                    } catch (ReplicationException noLeaderYet) {
                        return false;
                    }
                }, "a read index of " + member);
            }
        }
    }

    /** The records of node 0's newest snapshot of {@code group}, ingested into a database of their own. */
    private Map<String, String> newestSnapshot(int group, Path scratch) throws IOException {
        Path snapshots = root.resolve("node0").resolve("groups").resolve(ClusterTopology.groupName(group))
                .resolve("snapshot");
        Path newest;
        try (Stream<Path> dirs = Files.list(snapshots)) {
            newest = dirs.filter(p -> p.getFileName().toString().startsWith("snapshot_"))
                    .max((a, b) -> Long.compare(index(a), index(b))).orElseThrow();
        }
        List<Path> tables;
        try (Stream<Path> files = Files.list(newest)) {
            tables = files.filter(p -> p.toString().endsWith(".sst")).sorted().toList();
        }
        try (Db db = Db.open(scratch, Options.defaults())) {
            if (!tables.isEmpty()) {
                db.ingestExternalFiles(tables, IngestOptions.defaults());
            }
            BitSet all = new BitSet();
            all.set(0, HashSlot.SLOTS);
            return keysOf(db, all);
        }
    }

    private static long index(Path snapshotDir) {
        return Long.parseLong(snapshotDir.getFileName().toString().substring("snapshot_".length()));
    }

    /** The slotted records (metadata and subkeys) of {@code db} in {@code slots}, in hex. */
    private static Map<String, String> keysOf(Db db, BitSet slots) {
        Map<String, String> records = new TreeMap<>();
        try (Snapshot snapshot = db.snapshot(); DbIterator it = db.iterator(ReadOptions.at(snapshot)
                .withLowerBound(new byte[] {KeyEncoding.SLOTTED_METADATA_PREFIX})
                .withUpperBound(new byte[] {KeyEncoding.SLOTTED_SUBKEY_PREFIX + 1}))) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] key = it.key();
                int slot = KeyEncoding.slotOf(key);
                if (slot >= 0 && slots.get(slot)) {
                    records.put(HEX.formatHex(key), HEX.formatHex(it.value()));
                }
            }
        }
        return records;
    }

    private static void await(BooleanSupplier condition, String what) throws TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("no " + what + " within 60 s");
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
