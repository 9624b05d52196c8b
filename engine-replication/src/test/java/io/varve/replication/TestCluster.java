package io.varve.replication;

import io.varve.base.LoopbackPorts;
import io.varve.core.ColumnFamily;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Members of one group on loopback in this JVM (members may be stopped while other threads use the cluster), each a "process" with its own data directory and free port.
 * Waits go through futures; the timeout only detects hangs.
 */
final class TestCluster implements AutoCloseable {
    static final long WAIT_SECONDS = 30;
    static final String GROUP = "g1";

    private final Path root;
    private final Opener opener;
    private final List<String> addresses = new CopyOnWriteArrayList<>();
    private final Map<String, ReplicatedDb> members = Collections.synchronizedMap(new LinkedHashMap<>());

    /** Opens a member (its process and database) on its data directory. */
    @FunctionalInterface
    interface Opener {
        ReplicatedDb open(String address, List<String> peers, Path dataDir) throws IOException;
    }

    TestCluster(Path root, int size, ReplicatedDbOptions options) throws IOException {
        this(root, size, (address, peers, dataDir) -> ReplicatedDb.open(GROUP, address, peers, dataDir, options));
    }

    /** A cluster whose members {@code opener} opens, for members on a file system the test controls. */
    TestCluster(Path root, int size, Opener opener) throws IOException {
        this.root = root;
        this.opener = opener;
        for (int i = 0; i < size; i++) {
            addresses.add("127.0.0.1:" + LoopbackPorts.next());
        }
        for (String address : addresses) {
            start(address, addresses);
        }
    }

    static ReplicatedDbOptions fastOptions() {
        return ReplicatedDbOptions.defaults().withElectionTimeoutMs(1000).withSnapshotIntervalSecs(0)
                .withRequestTimeoutMs(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    }


    List<String> addresses() {
        return List.copyOf(addresses);
    }

    Path dataDir(String address) {
        return root.resolve("node-" + address.replace(':', '_'));
    }

    /** Starts (or restarts, on its directories) the member at {@code address}, with {@code peers} as its initial conf. */
    ReplicatedDb start(String address, List<String> peers) throws IOException {
        ReplicatedDb db = opener.open(address, peers, dataDir(address));
        members.put(address, db);
        if (!addresses.contains(address)) {
            addresses.add(address);
        }
        return db;
    }

    /** Stops the member and closes its database, as a crash would stop it (its unsynced database writes aside). */
    void stop(String address) throws IOException {
        ReplicatedDb db = members.remove(address);
        db.close();
    }

    ReplicatedDb member(String address) {
        return members.get(address);
    }

    List<ReplicatedDb> running() {
        synchronized (members) {
            return List.copyOf(members.values());
        }
    }

    /** Waits until one of the running members is leader and returns it. */
    ReplicatedDb awaitLeader() throws Exception {
        while (true) {
            List<ReplicatedDb> running = running();
            CompletableFuture.anyOf(running.stream().map(m -> m.stateMachine().leadership())
                    .toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            for (ReplicatedDb m : running) {
                if (m.isLeader()) {
                    return m;
                }
            }
            // It stepped down between the notification and the check; wait for the next leader.
        }
    }

    /** Every running member has applied everything committed so far (each passes a read barrier). */
    void awaitCaughtUp() throws Exception {
        for (ReplicatedDb m : running()) {
            m.readBarrier().get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Every user family's contents of one member, as hex strings, for comparing replicas. */
    static Map<String, Map<String, String>> scan(ReplicatedDb member) {
        return member.readLocal(TestCluster::scan);
    }

    static Map<String, Map<String, String>> scan(Db db) {
        Map<String, Map<String, String>> all = new TreeMap<>();
        HexFormat hex = HexFormat.of();
        try (Snapshot snapshot = db.snapshot()) {
            for (ColumnFamily family : db.columnFamilies()) {
                if (family.name().equals(DbStateMachine.STATE_FAMILY)) {
                    continue;
                }
                Map<String, String> entries = new TreeMap<>();
                try (DbIterator it = db.iterator(ReadOptions.at(snapshot), family)) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        entries.put(hex.formatHex(it.key()), hex.formatHex(it.value()));
                    }
                }
                if (!entries.isEmpty()) {
                    all.put(family.name(), entries);
                }
            }
        }
        return all;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static boolean same(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }

    /** Stops every member at once: each stop waits for its RPC server to release the port. */
    @Override
    public void close() throws IOException {
        closeAll(running());
        members.clear();
    }

    static void closeAll(List<? extends AutoCloseable> resources) throws IOException {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (AutoCloseable resource : resources) {
            closing.add(CompletableFuture.runAsync(() -> {
                try {
                    resource.close();
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }));
        }
        try {
            CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException("closing failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new IOException("closing did not finish", e);
        }
    }
}
