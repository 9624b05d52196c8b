package io.varve.replication;

import static io.varve.replication.TestCluster.WAIT_SECONDS;
import static io.varve.replication.TestCluster.bytes;
import static io.varve.replication.TestCluster.scan;
import static io.varve.replication.TestCluster.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.LinearizabilityChecker;
import io.varve.base.LinearizabilityChecker.Operation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three clients write unique values to a few keys through the leader and read them on random members, while
 * the leader's machine crashes part-way (storage reduced to what was synced); the crashed member then comes
 * back on what it kept and, once caught up, every member is read once more. The whole recorded history, those
 * final reads included, must be linearizable per key. Failed writes are recorded with an unknown outcome,
 * failed reads left out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LinearizableRegisterTest {
    private static final int CLIENTS = 3;
    private static final int OPS_PER_CLIENT = 80;
    private static final int KEYS = 4;

    @TempDir
    Path dir;

    private final Map<String, List<Operation>> history = new ConcurrentHashMap<>();

    private void record(String key, Operation op) {
        history.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(op);
    }

    private void client(TestCluster cluster, int id, CountDownLatch halfway) throws Exception {
        Random random = new Random(id);
        ReplicatedDb leader = cluster.awaitLeader();
        int done = 0;
        while (done < OPS_PER_CLIENT) {
            if (done == OPS_PER_CLIENT / 2) {
                halfway.countDown();
            }
            String key = "key" + random.nextInt(KEYS);
            boolean ok;
            if (random.nextBoolean()) {
                String value = "c" + id + "-" + done;
                long invoke = System.nanoTime();
                try {
                    leader.put(bytes(key), bytes(value));
                    record(key, Operation.write(value, invoke, System.nanoTime()));
                    ok = true;
                } catch (RuntimeException e) {
                    record(key, Operation.write(value, invoke, LinearizabilityChecker.UNKNOWN));
                    ok = false;
                }
            } else {
                List<ReplicatedDb> running = cluster.running();
                ReplicatedDb member = running.get(random.nextInt(running.size()));
                long invoke = System.nanoTime();
                try {
                    String value = string(member.get(bytes(key)));
                    record(key, Operation.read(value, invoke, System.nanoTime()));
                    ok = true;
                } catch (RuntimeException e) {
                    ok = false; // a read that returned nothing constrains nothing
                }
            }
            if (ok) {
                done++;
            } else {
                leader = cluster.awaitLeader();
            }
        }
    }

    @Test
    void registerHistoryWithALeaderKillIsLinearizable() throws Exception {
        try (CrashableMembers machines = new CrashableMembers();
                TestCluster cluster = new TestCluster(dir, 3, machines::open)) {
            CountDownLatch halfway = new CountDownLatch(1);
            List<CompletableFuture<Void>> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int id = c;
                clients.add(CompletableFuture.runAsync(() -> {
                    try {
                        client(cluster, id, halfway);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, runnable -> new Thread(runnable, "client-" + id).start()));
            }
            assertTrue(halfway.await(WAIT_SECONDS, TimeUnit.SECONDS));
            // Whichever member leads at this moment, not the first leader: leadership may have moved since.
            String killed = cluster.awaitLeader().address();
            machines.crash(cluster, killed);
            CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS * 2, TimeUnit.SECONDS);

            cluster.start(killed, cluster.addresses());
            ReplicatedDb leader = cluster.awaitLeader();
            cluster.awaitCaughtUp();
            for (ReplicatedDb m : cluster.running()) {
                assertEquals(scan(leader), scan(m), "replica " + m.address());
            }
            // Every member's final value, the restarted one's included, must be one the history allows last.
            for (ReplicatedDb m : cluster.running()) {
                for (int k = 0; k < KEYS; k++) {
                    String key = "key" + k;
                    long invoke = System.nanoTime();
                    String value = string(m.get(bytes(key)));
                    record(key, Operation.read(value, invoke, System.nanoTime()));
                }
            }
            assertEquals(List.of(), LinearizabilityChecker.violations(history), "keys with a non-linearizable history");
        }
    }
}
