package io.varve.server;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Black box: three server processes (the program bin/varve runs, from the test class path), a real client,
 * and {@code kill -9} of the leader while writes are in flight. Every write the client saw acknowledged is
 * on the new leader, and on the killed member once it is restarted and caught up. Tagged {@code process}
 * (about 30 s; {@code -DexcludedGroups=process} skips it).
 */
@Tag("process")
class ReplicatedProcessesTest {

    private static final int SIZE = 3;
    private static final Map<Process, Path> LOGS = new ConcurrentHashMap<>();

    @Test
    void acknowledgedWritesSurviveKillNineOfTheLeader(@TempDir Path dir) throws Exception {
        int[] client = new int[SIZE];
        int[] raft = new int[SIZE];
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            client[i] = LoopbackPorts.next();
            raft[i] = LoopbackPorts.next();
            peers.add("127.0.0.1:" + raft[i] + "/127.0.0.1:" + client[i]);
        }
        Process[] processes = new Process[SIZE];
        try {
            for (int i = 0; i < SIZE; i++) {
                processes[i] = launch(dir, i, client[i], raft[i], String.join(",", peers));
            }
            int leader = awaitLeader(client, processes, -1);

            List<RedisFuture<String>> writes = new ArrayList<>();
            CountDownLatch halfAcknowledged = new CountDownLatch(100);
            try (Lettuce l = Lettuce.connect(client[leader], ProtocolVersion.RESP2)) {
                RedisAsyncCommands<String, String> async = l.connection.async();
                for (int i = 0; i < 400; i++) {
                    RedisFuture<String> f = async.set("key:" + i, "value-" + i);
                    f.thenRun(halfAcknowledged::countDown);
                    writes.add(f);
                }
                assertTrue(halfAcknowledged.await(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS));
                processes[leader].destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed
                processes[leader].waitFor(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS);
            }
            List<Integer> acknowledged = new ArrayList<>();
            for (int i = 0; i < writes.size(); i++) {
                RedisFuture<String> f = writes.get(i);
                if (f.state() == Future.State.SUCCESS && "OK".equals(f.resultNow())) {
                    acknowledged.add(i);
                }
            }
            assertTrue(acknowledged.size() >= 100, "acknowledged before the kill: " + acknowledged.size());

            int next = awaitLeader(client, processes, leader);
            try (Lettuce n = Lettuce.connect(client[next], ProtocolVersion.RESP2)) {
                for (int i : acknowledged) {
                    int k = i;
                    assertEquals("value-" + i, ReplicatedCluster.retrying(() -> n.sync().get("key:" + k)));
                }
                ReplicatedCluster.retrying(() -> n.sync().set("after", "kill"));
            }

            processes[leader] = launch(dir, leader, client[leader], raft[leader], String.join(",", peers));
            long committed;
            try (Lettuce n = Lettuce.connect(client[next], ProtocolVersion.RESP2)) {
                committed = Long.parseLong(ReplicatedServerTest.parse(n.sync().info("replication"))
                        .get("raft_commit_index"));
            }
            awaitServing(client[leader], processes[leader]);
            try (Lettuce back = Lettuce.connect(client[leader], ProtocolVersion.RESP2)) {
                ReplicatedCluster.await(() -> Long.parseLong(ReplicatedServerTest.parse(
                        back.sync().info("replication")).get("raft_applied_index")) >= committed,
                        "catch-up of the restarted member");
                back.sync().readOnly();
                for (int i : acknowledged) {
                    assertEquals("value-" + i, back.sync().get("key:" + i));
                }
                assertEquals("kill", back.sync().get("after"));
            }
        } finally {
            for (Process p : processes) {
                if (p != null) {
                    p.destroyForcibly();
                    p.waitFor(ReplicatedCluster.WAIT_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    private static Process launch(Path dir, int i, int clientPort, int raftPort, String peers) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path home = dir.resolve("node" + i);
        home.toFile().mkdirs();
        List<String> command = List.of(java, "-Xmx256m", "-Dbolt.netty.epoll.switch=false",
                "-Dio.netty.noUnsafe=true", "--enable-native-access=ALL-UNNAMED", "-cp", classPath,
                VarveMain.class.getName(), "--port", Integer.toString(clientPort), "--dir", home.toString(),
                "--io-threads", "1", "--raft-address", "127.0.0.1:" + raftPort, "--raft-peers", peers,
                "--raft-election-timeout", ReplicatedCluster.ELECTION_TIMEOUT);
        Path log = home.resolve("varve.log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        LOGS.put(process, log);
        return process;
    }

    /** Waits until the process answers PING. */
    private static void awaitServing(int port, Process process) throws TimeoutException {
        ReplicatedCluster.await(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("member on " + port + " exited: " + process.exitValue() + "\n"
                        + logOf(process));
            }
            try (Lettuce l = Lettuce.connect(port, ProtocolVersion.RESP2)) {
                return "PONG".equals(l.sync().ping());
            } catch (RuntimeException notYet) {
                return false;
            }
        }, "member on port " + port + " serving");
    }

    /** What the member printed, for a failure message: a member that exits says why only there. */
    private static String logOf(Process process) {
        Path log = LOGS.get(process);
        try {
            return log == null ? "" : Files.readString(log);
        } catch (IOException e) {
            return "(its log " + log + " could not be read: " + e + ")";
        }
    }

    private static int awaitLeader(int[] client, Process[] processes, int except) throws TimeoutException {
        for (int i = 0; i < SIZE; i++) {
            if (i != except) {
                awaitServing(client[i], processes[i]);
            }
        }
        int[] found = {-1};
        ReplicatedCluster.await(() -> {
            for (int i = 0; i < SIZE; i++) {
                if (i == except) {
                    continue;
                }
                try (Lettuce l = Lettuce.connect(client[i], ProtocolVersion.RESP2)) {
                    Map<String, String> info = ReplicatedServerTest.parse(l.sync().info("replication"));
                    if ("master".equals(info.get("role"))) {
                        found[0] = i;
                        return true;
                    }
                }
            }
            return false;
        }, "a leader among the processes");
        return found[0];
    }
}
