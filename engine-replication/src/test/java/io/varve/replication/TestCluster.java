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
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Members of one group on loopback in this JVM (members may be stopped while other threads use the cluster), each a "process" with its own data directory and free port.
 * Waits go through futures or bounded polls; the timeout only detects hangs.
 *
 * <p>On a loaded machine a stall longer than the election timeout lets the followers elect another leader at
 * any moment, so tests do not keep a reference to "the leader": {@link #onLeader} and {@link #write} find the
 * leader of the moment and go again when leadership moved, and {@link #read} retries a read on a member that
 * does not know a leader yet.
 */
final class TestCluster implements AutoCloseable {
    static final long WAIT_SECONDS = 30;
    static final String GROUP = "g1";
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

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

    /**
     * Options for test groups. The election timeout is short enough that a failover takes a few seconds, and
     * long enough that an ordinary stall of a loaded machine does not elect a new leader (the tests survive one
     * anyway, see the class comment; this only keeps such retries rare).
     */
    static ReplicatedDbOptions fastOptions() {
        return ReplicatedDbOptions.defaults().withElectionTimeoutMs(2000).withSnapshotIntervalSecs(0)
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

    /** Waits until one of the running members is leader, with its state machine started as one, and returns it. */
    ReplicatedDb awaitLeader() throws Exception {
        return awaitLeader(this::running);
    }

    /** {@link #awaitLeader()} among the members {@code members} lists at each look (for groups outside a cluster). */
    static ReplicatedDb awaitLeader(Supplier<List<ReplicatedDb>> members) throws Exception {
        while (true) {
            List<ReplicatedDb> running = members.get();
            CompletableFuture.anyOf(running.stream().map(m -> m.stateMachine().leadership())
                    .toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
            for (ReplicatedDb m : running) {
                if (m.isLeader() && m.leaderTerm() > 0) {
                    return m;
                }
            }
            // It stepped down between the notification and the check; wait for the next leader.
            LockSupport.parkNanos(RETRY_PAUSE_NANOS);
        }
    }

    /**
     * Runs {@code operation} on the member that is leader now; when Raft refused it because leadership moved
     * (see {@link #leadershipChanging}) it runs it again on the next leader. Returns the member that completed it.
     * A refused operation may have been proposed by a leader that stepped down and still commit, so it must be
     * idempotent and the only one in flight: the retry then leaves the state it would have left once.
     */
    ReplicatedDb onLeader(Consumer<ReplicatedDb> operation) throws Exception {
        return onLeader(this::running, operation);
    }

    /** {@link #onLeader(Consumer)} on the leader among {@code members} (for groups outside a cluster). */
    static ReplicatedDb onLeader(Supplier<List<ReplicatedDb>> members, Consumer<ReplicatedDb> operation)
            throws Exception {
        long deadline = deadline();
        while (true) {
            ReplicatedDb leader = awaitLeader(members);
            try {
                operation.accept(leader);
                return leader;
            } catch (ReplicationException e) {
                if (!leadershipChanging(e) || pastDeadline(deadline)) {
                    throw e;
                }
                // A leader that just stepped down may still say it leads for a moment.
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
            }
        }
    }

    /**
     * Writes {@code batch} through the leader of the moment (see {@link #onLeader}: batches of puts and deletes
     * of fixed values, one at a time). Returns the member that acknowledged it.
     */
    ReplicatedDb write(ReplicatedBatch batch) throws Exception {
        return onLeader(leader -> leader.write(batch));
    }

    /**
     * Writes {@code batches} pipelined on the leader of the moment, leaving the group as if they were written
     * one after another. If leadership moves, the first batch turned away and every one after it are written
     * again in order, one at a time ({@link #write}): whatever of them committed before is then overwritten in
     * the order given, so even batches touching the same keys end as submitted.
     */
    void writeAll(List<ReplicatedBatch> batches) throws Exception {
        ReplicatedDb leader = awaitLeader();
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (ReplicatedBatch batch : batches) {
            acks.add(leader.writeAsync(batch));
        }
        int firstTurnedAway = batches.size();
        for (int i = 0; i < acks.size(); i++) {
            try {
                acks.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof ReplicationException r) || !leadershipChanging(r)) {
                    throw e;
                }
                firstTurnedAway = Math.min(firstTurnedAway, i);
            }
        }
        for (ReplicatedBatch batch : batches.subList(firstTurnedAway, batches.size())) {
            write(batch);
        }
    }

    /**
     * Raft turned the operation away because leadership is changing: the member was not, or stopped being, the
     * leader and refused it before proposing ({@link NotLeaderException}, jraft's EPERM "Is not leader"), or
     * proposed it and dropped it when it stepped down (EPERM, outcome unknown), or a new leader was still
     * settling its configuration (EBUSY, refused before proposing). Any other failure (a timeout, a state
     * machine error) is a real one.
     */
    static boolean leadershipChanging(ReplicationException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return e instanceof NotLeaderException || message.contains("Status[EPERM<")
                || message.contains("Status[EBUSY<");
    }

    /**
     * Reads on {@code member} ({@code reader} ends in a read barrier), retried while it fails: a member that was
     * just restarted, or whose leader just changed, knows no leader for a moment and refuses at once. A read
     * changes nothing, so any failure may be retried; the last one is thrown at the deadline.
     */
    static <T> T read(ReplicatedDb member, Function<ReplicatedDb, T> reader) {
        long deadline = deadline();
        while (true) {
            try {
                return reader.apply(member);
            } catch (ReplicationException e) {
                if (pastDeadline(deadline)) {
                    throw e;
                }
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
            }
        }
    }

    /** A linearizable read of {@code key} in the default family on {@code member}, see {@link #read}. */
    static byte[] get(ReplicatedDb member, byte[] key) {
        return read(member, m -> m.get(key));
    }

    static byte[] get(ReplicatedDb member, String family, byte[] key) {
        return read(member, m -> m.get(family, key));
    }

    /** Every running member has applied everything committed so far (each passes a read barrier). */
    void awaitCaughtUp() {
        for (ReplicatedDb m : running()) {
            read(m, member -> {
                member.awaitReadIndex();
                return null;
            });
        }
    }

    /** Polls until {@code condition} holds; the deadline only detects a hang. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = deadline();
        while (!condition.getAsBoolean()) {
            if (pastDeadline(deadline)) {
                throw new AssertionError("still not true after " + WAIT_SECONDS + " s: " + what);
            }
            LockSupport.parkNanos(RETRY_PAUSE_NANOS);
        }
    }

    /** When a wait that began now has hung: {@link #WAIT_SECONDS} from now. */
    static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    }

    static boolean pastDeadline(long deadline) {
        return System.nanoTime() - deadline > 0;
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
