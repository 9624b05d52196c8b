package io.varve.server;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.varve.server.command.KeySlot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What cluster clients see of cluster mode, on three nodes in this JVM with six groups (two led by each
 * node): a node counts, lists and flushes only the keys of the slots it serves, as a Redis Cluster node does,
 * so a cluster client summing over the masters sees every key once; PUBLISH reaches subscribers on every
 * node; a shard channel's SPUBLISH is redirected to its slot's leader, which reaches the group's members;
 * Lettuce's {@link RedisClusterClient} and Jedis' {@link JedisCluster} route by slot and follow MOVED from a
 * stale view; MULTI runs within one slot.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterClientsTest {

    private static final int GROUPS = 6;
    private static final int KEYS = 60;

    @TempDir
    static Path dir;
    private static ClusterNodes cluster;
    private static RedisClusterClient client;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterNodes.start(dir, GROUPS);
        cluster.awaitBalanced();
        client = cluster.clusterClient(false);
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void eachNodeCountsListsAndFlushesTheKeysOfItsOwnSlots() throws Exception {
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            assertEquals("OK", redis.flushall()); // on every master: each flushes its own slots
            Set<String> written = new HashSet<>();
            for (int i = 0; i < KEYS; i++) {
                redis.set("k:" + i, "v" + i);
                written.add("k:" + i);
            }
            // The cluster client sums DBSIZE and joins KEYS and SCAN over the masters: every key once.
            assertEquals(KEYS, redis.dbsize());
            List<String> listed = redis.keys("*");
            assertEquals(KEYS, listed.size());
            assertEquals(written, new HashSet<>(listed));
            List<String> scanned = new ArrayList<>();
            for (KeyScanCursor<String> page = redis.scan(ScanArgs.Builder.limit(7)); ;
                 page = redis.scan(page, ScanArgs.Builder.limit(7))) {
                scanned.addAll(page.getKeys());
                if (page.isFinished()) {
                    break;
                }
            }
            assertEquals(KEYS, scanned.size());
            assertEquals(written, new HashSet<>(scanned));

            // Node by node: its keys are those of the slots it leads, and together they are every key once.
            Set<String> seen = new HashSet<>();
            long total = 0;
            for (int port : cluster.clientPorts) {
                try (RespClient node = RespClient.connect(port)) {
                    Set<String> mine = new HashSet<>();
                    for (Object key : (List<?>) node.call("KEYS", "*")) {
                        mine.add((String) key);
                    }
                    long size = (Long) node.call("DBSIZE");
                    assertEquals(mine.size(), size);
                    total += size;
                    for (String key : mine) {
                        assertTrue(seen.add(key), key + " counted by two nodes");
                        int slot = KeySlot.of(key.getBytes(StandardCharsets.UTF_8));
                        assertEquals(port, ownerOf(connection, slot), key + " listed by a node not serving it");
                        assertEquals((long) countInSlot(mine, slot),
                                node.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
                    }
                    assertEquals(mine, new HashSet<>(scanAll(node)));
                    if (!mine.isEmpty()) {
                        assertTrue(mine.contains((String) node.call("RANDOMKEY")));
                    }
                }
            }
            assertEquals(KEYS, total);
            assertEquals(written, seen);
            // A node not serving a slot holds none of its keys, as Redis Cluster counts them.
            int slot = KeySlot.of("k:0".getBytes(StandardCharsets.UTF_8));
            int other = otherThan(ownerOf(connection, slot));
            try (RespClient node = RespClient.connect(other)) {
                assertEquals(0L, node.call("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)));
                assertEquals(List.of(), node.call("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "10"));
                assertEquals(new RespClient.Err("ERR SWAPDB is not allowed in cluster mode"),
                        node.call("SWAPDB", "0", "1"));
            }

            // FLUSHALL on one node empties its slots only; the other nodes' keys stay.
            int flushed = cluster.clientPorts[1];
            try (RespClient node = RespClient.connect(flushed)) {
                assertEquals("OK", node.call("FLUSHALL"));
                assertEquals(0L, node.call("DBSIZE"));
            }
            long kept = 0;
            for (int i = 0; i < KEYS; i++) {
                int s = KeySlot.of(("k:" + i).getBytes(StandardCharsets.UTF_8));
                if (ownerOf(connection, s) == flushed) {
                    assertNull(redis.get("k:" + i));
                } else {
                    assertEquals("v" + i, redis.get("k:" + i));
                    kept++;
                }
            }
            assertNotEquals(0, kept);
            assertEquals(kept, redis.dbsize());
            assertEquals("OK", redis.flushdb());
            assertEquals(0, redis.dbsize());
        }
    }

    @Test
    void publishReachesSubscribersOnEveryNodeAndShardMessagesGoThroughTheSlotsLeader() throws Exception {
        try (StatefulRedisClusterConnection<String, String> connection = client.connect();
             RespClient on1 = RespClient.connect(cluster.clientPorts[1]);
             RespClient on2 = RespClient.connect(cluster.clientPorts[2]);
             RespClient publisher = RespClient.connect(cluster.clientPorts[0])) {
            assertEquals(List.of("subscribe", "news", 1L), on1.call("SUBSCRIBE", "news"));
            assertEquals(List.of("subscribe", "news", 1L), on2.call("SUBSCRIBE", "news"));
            // The reply counts this node's receivers, as in Redis Cluster; the others get it over the links.
            assertEquals(0L, publisher.call("PUBLISH", "news", "first"));
            assertEquals(0L, publisher.call("PUBLISH", "news", "second"));
            for (RespClient subscriber : List.of(on1, on2)) {
                assertEquals(List.of("message", "news", "first"), subscriber.read());
                assertEquals(List.of("message", "news", "second"), subscriber.read());
            }

            int slot = KeySlot.of("orders".getBytes(StandardCharsets.UTF_8));
            int leader = ownerOf(connection, slot);
            int follower = otherThan(leader);
            try (RespClient atLeader = RespClient.connect(leader);
                 RespClient atFollower = RespClient.connect(follower)) {
                assertEquals(new RespClient.Err("MOVED " + slot + " 127.0.0.1:" + leader),
                        atFollower.call("SPUBLISH", "orders", "lost"));
                assertEquals(new RespClient.Err("CROSSSLOT Keys in request don't hash to the same slot"),
                        atFollower.call("SSUBSCRIBE", "orders", "invoices"));
                try (RespClient shardOnLeader = RespClient.connect(leader);
                     RespClient shardOnFollower = RespClient.connect(follower)) {
                    assertEquals(List.of("ssubscribe", "orders", 1L), shardOnLeader.call("SSUBSCRIBE", "orders"));
                    assertEquals(List.of("ssubscribe", "orders", 1L), shardOnFollower.call("SSUBSCRIBE", "orders"));
                    assertEquals(1L, atLeader.call("SPUBLISH", "orders", "o-1"));
                    assertEquals(List.of("smessage", "orders", "o-1"), shardOnLeader.read());
                    assertEquals(List.of("smessage", "orders", "o-1"), shardOnFollower.read());
                }
            }
            // CLUSTER SLOTS lists no node as a replica while it masters other ranges (redis-py would then
            // take it for a replica everywhere): with every node leading groups, each range has its leader only.
            List<?> slots = (List<?>) publisher.call("CLUSTER", "SLOTS");
            assertEquals(GROUPS, slots.size());
            for (Object range : slots) {
                assertEquals(3, ((List<?>) range).size(), range.toString());
            }
            // INFO cluster: the state, and a line per group naming its slots and leader.
            String info = (String) publisher.call("INFO", "cluster");
            assertTrue(info.contains("cluster_enabled:1\r\n"), info);
            assertTrue(info.contains("cluster_state:ok\r\n"), info);
            assertTrue(info.contains("cluster_groups:" + GROUPS + "\r\n"), info);
            assertTrue(info.contains("cluster_groups_led:2\r\n"), info);
            assertTrue(info.contains("cluster_group_0:name=slots-0,slots=0-2730,"), info);
        }
    }

    @Test
    void lettuceFollowsMovedFromAStaleViewAndRunsMultiWithinOneSlot() throws Exception {
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            String key = "{moved}:k";
            int slot = KeySlot.of("moved".getBytes(StandardCharsets.UTF_8));
            // Make the client's view stale before the connection routes anything to the slot (it caches the
            // route per slot once used): it now believes another node masters the slot.
            Partitions partitions = connection.getPartitions();
            RedisClusterNode owner = partitions.getPartitionBySlot(slot);
            RedisClusterNode wrong = partitions.stream().filter(n -> n != owner && !n.getSlots().isEmpty())
                    .findFirst().orElseThrow();
            owner.setSlots(owner.getSlots().stream().filter(s -> s != slot).toList());
            List<Integer> wrongSlots = new ArrayList<>(wrong.getSlots());
            wrongSlots.add(slot);
            wrong.setSlots(wrongSlots);
            partitions.updateCache();
            try {
                assertEquals(wrong.getUri().getPort(), ownerOf(connection, slot));
                long movedBefore = errorCount(wrong.getUri().getPort(), "MOVED");
                // The wrong node answers MOVED and the client follows it to the leader.
                assertEquals("OK", redis.set(key, "here"));
                assertEquals("here", redis.get(key));
                assertTrue(errorCount(wrong.getUri().getPort(), "MOVED") > movedBefore);
            } finally {
                client.refreshPartitions(); // the view is the client's, shared by the other tests' connections
            }

            // MULTI on the connection to the slot's master: a transaction within one slot runs as one entry.
            RedisCommands<String, String> node = connection.getConnection("127.0.0.1", owner.getUri().getPort()).sync();
            assertEquals("OK", node.multi());
            node.set("{moved}:a", "1");
            node.incr("{moved}:a");
            node.append(key, "!");
            assertEquals(List.of("OK", 2L, 5L), node.exec().stream().toList());
            assertEquals("2", redis.get("{moved}:a"));
            assertEquals("here!", redis.get(key));
        }
    }

    @Test
    void jedisClusterRoutesAcrossSlotsRunsMsetWithinAHashTagAndFollowsMoved() throws Exception {
        String movedKey = "{jedis-moved}:k";
        int movedSlot = KeySlot.of("jedis-moved".getBytes(StandardCharsets.UTF_8));
        try (StatefulRedisClusterConnection<String, String> lettuce = client.connect()) {
            int owner = ownerOf(lettuce, movedSlot);
            int wrong = otherThan(owner);
            Set<HostAndPort> seeds = Set.of(new HostAndPort("127.0.0.1", cluster.clientPorts[0]));
            JedisClientConfig config = DefaultJedisClientConfig.builder().timeoutMillis(10_000).build();
            StaleForOneSlot provider = new StaleForOneSlot(seeds, config, movedSlot,
                    new HostAndPort("127.0.0.1", wrong));
            try (JedisCluster jedis = new JedisCluster(provider, 5, Duration.ofSeconds(30))) {
                // SET and GET over keys of every node's slots, each sent straight to its slot's leader.
                long movedBefore = movedOnAllNodes();
                Set<Integer> owners = new HashSet<>();
                for (int i = 0; i < KEYS; i++) {
                    assertEquals("OK", jedis.set("jedis:" + i, "j" + i));
                    owners.add(ownerOf(lettuce, KeySlot.of(("jedis:" + i).getBytes(StandardCharsets.UTF_8))));
                }
                for (int i = 0; i < KEYS; i++) {
                    assertEquals("j" + i, jedis.get("jedis:" + i));
                }
                assertEquals(ClusterNodes.SIZE, owners.size(), "keys of every node's slots");
                assertEquals(movedBefore, movedOnAllNodes(), "Jedis routed every command to its slot's leader");

                // Keys of one slot (a hash tag) in one command.
                assertEquals("OK", jedis.mset("{jedis}:a", "1", "{jedis}:b", "2"));
                assertEquals(List.of("1", "2"), jedis.mget("{jedis}:a", "{jedis}:b"));

                // Its view stale for one slot, Jedis sends there, is answered MOVED and follows it.
                long movedAtWrong = errorCount(wrong, "MOVED");
                assertEquals("OK", jedis.set(movedKey, "here"));
                assertTrue(provider.misrouted.get(), "the stale route was taken");
                assertEquals(movedAtWrong + 1, errorCount(wrong, "MOVED"));
                assertEquals("here", jedis.get(movedKey));
            }
            assertEquals("here", lettuce.sync().get(movedKey));
        }
    }

    /**
     * Jedis' slot cache, stale for one slot: the first command of {@code slot} goes to {@code wrong}, as it
     * would after the slot's leadership moved, without Jedis knowing.
     */
    private static final class StaleForOneSlot extends ClusterConnectionProvider {
        private final int slot;
        private final HostAndPort wrong;
        final AtomicBoolean misrouted = new AtomicBoolean();

        StaleForOneSlot(Set<HostAndPort> seeds, JedisClientConfig config, int slot, HostAndPort wrong) {
            super(seeds, config);
            this.slot = slot;
            this.wrong = wrong;
        }

        @Override
        public Connection getConnectionFromSlot(int s) {
            if (s == slot && misrouted.compareAndSet(false, true)) {
                return getConnection(wrong);
            }
            return super.getConnectionFromSlot(s);
        }
    }

    private static long movedOnAllNodes() throws Exception {
        long total = 0;
        for (int port : cluster.clientPorts) {
            total += errorCount(port, "MOVED");
        }
        return total;
    }

    /** The node's count of error replies starting with {@code code} (INFO errorstats). */
    private static long errorCount(int port, String code) throws Exception {
        try (RespClient node = RespClient.connect(port)) {
            for (String line : ((String) node.call("INFO", "errorstats")).split("\r\n")) {
                if (line.startsWith("errorstat_" + code + ":count=")) {
                    return Long.parseLong(line.substring(line.indexOf('=') + 1));
                }
            }
            return 0;
        }
    }

    private static int countInSlot(Set<String> keys, int slot) {
        return (int) keys.stream().filter(k -> KeySlot.of(k.getBytes(StandardCharsets.UTF_8)) == slot).count();
    }

    private static List<String> scanAll(RespClient node) throws Exception {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> page = (List<?>) node.call("SCAN", cursor, "COUNT", "5");
            cursor = (String) page.get(0);
            for (Object key : (List<?>) page.get(1)) {
                keys.add((String) key);
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    private static int ownerOf(StatefulRedisClusterConnection<String, String> connection, int slot) {
        return connection.getPartitions().getPartitionBySlot(slot).getUri().getPort();
    }

    private static int otherThan(int port) {
        for (int p : cluster.clientPorts) {
            if (p != port) {
                return p;
            }
        }
        throw new AssertionError();
    }
}
