package io.varve.replication;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.option.ReadOnlyOption;
import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One member of a replicated Varve group: an engine-core database kept identical on every member by SOFAJRaft,
 * with the Raft log in the process's shared engine-raftlog ({@link ReplicationProcess}).
 *
 * <p>Writes ({@code put}, {@code delete}, {@code write}) go to the leader, which proposes them as one log entry
 * each; they return once the entry is committed (durable on a majority) and applied to the leader's database.
 * On a follower they throw {@link NotLeaderException} naming the leader. A write that fails with a timeout may
 * still commit. Reads ({@code get}) work on every member and are linearizable: they see every write
 * acknowledged before they started (see {@link ReplicatedDbOptions.ReadMode}).
 *
 * <p>Who belongs to the group (voters, learners) and changes to it go through {@link #membership()}.
 *
 * <p>Several groups may run in one process: open each over the same {@link ReplicationProcess}; their logs
 * share one engine and its fsyncs, and one RPC port. Thread-safe.
 */
public final class ReplicatedDb implements AutoCloseable {
    private static final Pattern GROUP_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    private final ReplicationProcess process;
    private final boolean ownsProcess;
    private final String group;
    private final ReplicatedDbOptions options;
    private final Db db;
    /** Whether {@link #db} belongs to the caller, shared with other groups: this member never closes it. */
    private final boolean sharedDb;
    private final DbStateMachine stateMachine;
    private final RaftGroupService service;
    private final Node node;
    private final GroupMembership membership;
    /** Volatile: {@link #isOpen} reads it without the lock {@link #close} holds while the node stops. */
    private volatile boolean closed;
    /** Read indexes asked of jraft by this member: every linearizable read and readiness check costs one. */
    private final AtomicLong readIndexes = new AtomicLong();

    private ReplicatedDb(ReplicationProcess process, boolean ownsProcess, String group,
                         ReplicatedDbOptions options, Db db, boolean sharedDb, DbStateMachine stateMachine,
                         RaftGroupService service) {
        this.process = process;
        this.ownsProcess = ownsProcess;
        this.group = group;
        this.options = options;
        this.db = db;
        this.sharedDb = sharedDb;
        this.stateMachine = stateMachine;
        this.service = service;
        this.node = service.getRaftNode();
        this.membership = new GroupMembership(this, node);
    }

    /**
     * Opens a member of {@code group} in a process of its own, listening at {@code address}, with everything
     * under {@code dataDir}. {@code peers} ({@code host:port}, including {@code address}) is the group's initial
     * membership; it is used only when the member has no Raft state yet. A new member joining a running group
     * passes an empty list (it then waits to be contacted instead of standing for election) and is added with
     * {@link GroupMembership#addPeer} on the leader.
     */
    public static ReplicatedDb open(String group, String address, List<String> peers, Path dataDir,
                                    ReplicatedDbOptions options) throws IOException {
        ReplicationProcess process = ReplicationProcess.open(dataDir, address, RaftLogOptions.defaults());
        try {
            return open(process, true, group, peers, options, null, ApplyGate.OPEN, null,
                    DbStateMachine.LoadProbe.NONE);
        } catch (IOException | RuntimeException e) {
            process.close();
            throw e;
        }
    }

    /** Opens a member of {@code group} in {@code process}, sharing its log and port with the process's other groups. */
    public static ReplicatedDb open(ReplicationProcess process, String group, List<String> peers,
                                    ReplicatedDbOptions options) throws IOException {
        return open(process, false, group, peers, options, null, ApplyGate.OPEN, null,
                DbStateMachine.LoadProbe.NONE);
    }

    /**
     * Opens a member of {@code group} in {@code process} whose state lives in {@code shared}, a database the
     * caller owns and that other groups of the process apply to as well (docs/cluster.md): the groups must
     * write disjoint keys. The group's applied index is its own key in the database, written with each
     * batch it applies, so every group replays its own log idempotently after a crash. This form takes no
     * snapshots (a snapshot of the whole database would carry other groups' data, and loading one would clear
     * it): periodic snapshots are off whatever {@code options} says, and {@link #snapshot()} fails; the form
     * given the group's share ({@link GroupShare}) takes snapshots of it. Closing the member leaves the
     * database open. Open the groups sharing a database one at a time (the first creates the internal family
     * they share).
     */
    public static ReplicatedDb openShared(ReplicationProcess process, String group, List<String> peers,
                                          ReplicatedDbOptions options, Db shared) throws IOException {
        return openShared(process, group, peers, options, shared, ApplyGate.OPEN);
    }

    /**
     * {@link #openShared(ReplicationProcess, String, List, ReplicatedDbOptions, Db)} with every committed
     * entry passing {@code gate} before it applies; a write the gate refuses fails with
     * {@link EntryRefusedException}.
     */
    public static ReplicatedDb openShared(ReplicationProcess process, String group, List<String> peers,
                                          ReplicatedDbOptions options, Db shared, ApplyGate gate)
            throws IOException {
        if (shared == null) {
            throw new IllegalArgumentException("openShared needs the shared database");
        }
        return open(process, false, group, peers, options.withSnapshotIntervalSecs(0), shared, gate, null,
                DbStateMachine.LoadProbe.NONE);
    }

    /**
     * {@link #openShared(ReplicationProcess, String, List, ReplicatedDbOptions, Db, ApplyGate)} for a group
     * that takes snapshots of its {@code share} of the shared database (as {@code options} says): a snapshot
     * holds the share's key ranges of the default family and its state, and installing one (a follower far
     * behind, a new member) replaces the ranges the share chooses and hands it the state, leaving the other
     * groups' keys alone (docs/replication.md, "Snapshots of a group sharing its database"). Every key the
     * group writes must lie in the share's ranges.
     */
    public static ReplicatedDb openShared(ReplicationProcess process, String group, List<String> peers,
                                          ReplicatedDbOptions options, Db shared, ApplyGate gate,
                                          GroupShare share) throws IOException {
        if (shared == null || gate == null || share == null) {
            throw new IllegalArgumentException("openShared needs the shared database, a gate and the group's share");
        }
        return open(process, false, group, peers, options, shared, gate, share, DbStateMachine.LoadProbe.NONE);
    }

    /**
     * {@link #openShared(ReplicationProcess, String, List, ReplicatedDbOptions, Db, ApplyGate, GroupShare)}
     * with no gate and a share of the key ranges {@code ownedRanges} gives (ascending, disjoint, each
     * {@code [start, limit)} bounded; asked at each snapshot), with no state of its own: an install replaces
     * them all.
     */
    public static ReplicatedDb openShared(ReplicationProcess process, String group, List<String> peers,
                                          ReplicatedDbOptions options, Db shared,
                                          Supplier<List<Db.Range>> ownedRanges) throws IOException {
        return openShared(process, group, peers, options, shared, ownedRanges, DbStateMachine.LoadProbe.NONE);
    }

    /** For tests: {@link #openShared(ReplicationProcess, String, List, ReplicatedDbOptions, Db, Supplier)} reporting loads. */
    static ReplicatedDb openShared(ReplicationProcess process, String group, List<String> peers,
                                   ReplicatedDbOptions options, Db shared, Supplier<List<Db.Range>> ownedRanges,
                                   DbStateMachine.LoadProbe probe) throws IOException {
        if (shared == null || ownedRanges == null) {
            throw new IllegalArgumentException("openShared needs the shared database and the group's ranges");
        }
        return open(process, false, group, peers, options, shared, ApplyGate.OPEN,
                GroupShare.ofRanges(ownedRanges), probe);
    }

    /** For tests: {@link #open(ReplicationProcess, String, List, ReplicatedDbOptions)} reporting loads to a probe. */
    static ReplicatedDb open(ReplicationProcess process, String group, List<String> peers,
                             ReplicatedDbOptions options, DbStateMachine.LoadProbe probe) throws IOException {
        return open(process, false, group, peers, options, null, ApplyGate.OPEN, null, probe);
    }

    private static ReplicatedDb open(ReplicationProcess process, boolean ownsProcess, String group,
                                     List<String> peers, ReplicatedDbOptions options, Db shared,
                                     ApplyGate gate, GroupShare share, DbStateMachine.LoadProbe probe)
            throws IOException {
        if (group == null || !GROUP_NAME.matcher(group).matches() || group.startsWith(".")) {
            throw new IllegalArgumentException("group ids are 1-128 letters, digits, '_', '-', '.': " + group);
        }
        Configuration conf = new Configuration();
        for (String peer : peers) {
            conf.addPeer(ReplicationProcess.parsePeer(peer));
        }
        process.claim(group);
        Db db = null;
        try {
            Path home = process.groupDir(group);
            Path snapshots = home.resolve("snapshot");
            Files.createDirectories(snapshots);
            db = shared != null ? shared : Db.open(home.resolve("db"), options.dbOptions());
            DbStateMachine stateMachine = shared != null
                    ? DbStateMachine.shared(db, group, group + "@" + process.address(), gate, share, probe)
                    : new DbStateMachine(db, group + "@" + process.address(), probe);
            NodeOptions nodeOptions = new NodeOptions();
            nodeOptions.setElectionTimeoutMs(options.electionTimeoutMs());
            nodeOptions.setInitialConf(conf);
            nodeOptions.setFsm(stateMachine);
            nodeOptions.setServiceFactory(process.log().serviceFactory());
            nodeOptions.setLogUri(group + "/log");
            nodeOptions.setRaftMetaUri(group + "/meta");
            nodeOptions.setSnapshotUri(snapshots.toString());
            nodeOptions.setSnapshotIntervalSecs(options.snapshotIntervalSecs());
            nodeOptions.setDisableCli(true);
            RaftOptions raftOptions = new RaftOptions();
            // A snapshot's files must be durable before jraft drops the log it replaces.
            raftOptions.setSyncMeta(true);
            raftOptions.setReadOnlyOptions(options.readMode() == ReplicatedDbOptions.ReadMode.LEASE
                    ? ReadOnlyOption.ReadOnlyLeaseBased : ReadOnlyOption.ReadOnlySafe);
            nodeOptions.setRaftOptions(raftOptions);
            RaftGroupService service = new RaftGroupService(group, process.peer(), nodeOptions,
                    process.rpcServer(), true);
            if (service.start(false) == null) {
                throw new IOException("the raft node of group " + group + " did not start");
            }
            return new ReplicatedDb(process, ownsProcess, group, options, db, shared != null, stateMachine,
                    service);
        } catch (IOException | RuntimeException e) {
            if (db != null && shared == null) {
                db.close();
            }
            process.release(group);
            throw e;
        }
    }

    public String group() {
        return group;
    }

    /** This member's address, {@code host:port}. */
    public String address() {
        return process.address();
    }

    public void put(byte[] key, byte[] value) {
        write(new ReplicatedBatch().put(key, value));
    }

    public void put(String family, byte[] key, byte[] value) {
        write(new ReplicatedBatch().put(family, key, value));
    }

    public void delete(byte[] key) {
        write(new ReplicatedBatch().delete(key));
    }

    public void delete(String family, byte[] key) {
        write(new ReplicatedBatch().delete(family, key));
    }

    /**
     * Applies the batch atomically on every member; returns once it is committed and applied here.
     *
     * @throws NotLeaderException if this member is not the leader
     * @throws ReplicationException if Raft failed it or it did not complete in time
     */
    public void write(ReplicatedBatch batch) {
        await(writeAsync(batch), "write");
    }

    /** The asynchronous form of {@link #write}: the future fails with the same exceptions. */
    public CompletableFuture<Void> writeAsync(ReplicatedBatch batch) {
        if (batch.count() == 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!node.isLeader()) {
            done.completeExceptionally(notLeader());
            return done;
        }
        Task task = new Task(ByteBuffer.wrap(CommandCodec.encode(batch)), status -> {
            if (status.isOk()) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure(status, "write"));
            }
        });
        node.apply(task);
        return done;
    }

    /**
     * {@link #write(ReplicatedBatch)} for an engine-core batch, whose puts and deletes it carries over (named
     * families by name). Lets code written against {@link Db} route its commits through the group.
     *
     * @throws IllegalArgumentException if the batch holds a range deletion (not a replicated command)
     */
    public void write(WriteBatch batch) {
        write(toReplicated(batch));
    }

    static ReplicatedBatch toReplicated(WriteBatch batch) {
        ReplicatedBatch replicated = new ReplicatedBatch();
        batch.forEach(new WriteBatch.Visitor() {
            @Override
            public void put(String family, byte[] key, byte[] value) {
                replicated.put(family, key, value);
            }

            @Override
            public void delete(String family, byte[] key) {
                replicated.delete(family, key);
            }

            @Override
            public void deleteRange(String family, byte[] begin, byte[] end) {
                throw new IllegalArgumentException("range deletions are not replicated commands");
            }
        });
        return replicated;
    }

    public byte[] get(byte[] key) {
        return get(ReplicatedBatch.DEFAULT_FAMILY, key);
    }

    /**
     * The value of {@code key} in {@code family}, or null: a linearizable read served by this member once it
     * has applied everything committed when the read began.
     *
     * @throws ReplicationException if the read could not be confirmed (no leader reachable) in time
     */
    public byte[] get(String family, byte[] key) {
        return await(getAsync(family, key), "read");
    }

    public CompletableFuture<byte[]> getAsync(String family, byte[] key) {
        ReplicatedBatch.checkFamily(family);
        byte[] k = key.clone();
        return readBarrier().thenApply(ignored -> readLocal(d -> d.columnFamily(family)
                .map(cf -> d.get(cf, k)).orElse(null)));
    }

    /**
     * Waits until this member's database includes every write committed before the call (Raft's read
     * index, confirmed as the {@link ReplicatedDbOptions.ReadMode} says); reads of {@link #database()} after
     * it are then linearizable.
     *
     * @throws ReplicationException if no leader confirmed the index in time
     */
    public void awaitReadIndex() {
        await(readBarrier(), "read");
    }

    /**
     * This member's engine-core database, for reads only: everything written must go through {@link #write},
     * or this replica will differ from the others. Reads see the state after the entries applied so far
     * (after {@link #awaitReadIndex()}: linearizable). A follower installing a snapshot clears and refills it.
     */
    public Db database() {
        return db;
    }

    /** Completes once this member's state includes every write committed before the call. */
    CompletableFuture<Void> readBarrier() {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        readIndexes.incrementAndGet();
        node.readIndex(new byte[0], new ReadIndexClosure() {
            @Override
            public void run(Status status, long index, byte[] context) {
                if (status.isOk()) {
                    ready.complete(null);
                } else {
                    ready.completeExceptionally(readFailure(status));
                }
            }
        });
        return ready;
    }

    /** How many read indexes this member has asked for since it opened (concurrent ones share a round). */
    public long readIndexesRequested() {
        return readIndexes.get();
    }

    /**
     * Runs {@code action}, which reads {@link #database()}, while no snapshot is being installed: a follower
     * installing one clears the database before refilling it, and a read must see the state before or after,
     * never the half-cleared one. Loads wait for running actions, so keep them short.
     */
    public <T> T readWhileNoSnapshotLoads(java.util.function.Supplier<T> action) {
        return stateMachine.read(d -> action.get());
    }

    /** Reads this member's database as it is now, without a read barrier (for tests and scans). */
    <T> T readLocal(Function<Db, T> reader) {
        return stateMachine.read(reader);
    }

    /** The leader this member knows of, {@code host:port}. */
    public Optional<String> leader() {
        PeerId leader = node.getLeaderId();
        return leader == null || leader.isEmpty() ? Optional.empty() : Optional.of(leader.getEndpoint().toString());
    }

    public boolean isLeader() {
        return node.isLeader();
    }

    /**
     * Runs {@code listener} whenever this member stops being the leader (stepped down, deposed, shut down),
     * on jraft's state-machine thread: it must not block.
     */
    public void onLeadershipLost(Runnable listener) {
        stateMachine.onLeadershipLost(listener);
    }

    /**
     * The term in which this member is leader, or -1 when it is not (yet) one: set once jraft has started
     * the leader's state machine for the term, cleared when it steps down.
     */
    public long leaderTerm() {
        return stateMachine.leaderTerm();
    }

    /** What this member knows of the group now, for monitoring (INFO replication). */
    public MemberStatus status() {
        NodeImpl impl = (NodeImpl) node;
        // Applied before committed: both only grow and entries are applied after they commit, so a busy group
        // read the other way round could show an applied index past the commit index read just before it.
        long applied = node.getLastAppliedLogIndex();
        long committed = node.getLastCommittedIndex();
        return new MemberStatus(impl.getNodeState().name().replace("STATE_", "").toLowerCase(Locale.ROOT),
                stateMachine.term(), committed, applied, node.getLastLogIndex());
    }

    /**
     * A member's view: its Raft {@code role} (leader, follower, candidate, ...), the newest {@code term} it has
     * seen a leader in, the {@code commitIndex} it knows, the {@code appliedIndex} of its database and the
     * {@code lastLogIndex} of its log.
     */
    public record MemberStatus(String role, long term, long commitIndex, long appliedIndex, long lastLogIndex) {
    }

    /** Who belongs to the group, and the changes to it: voters and learners, and handing over leadership. */
    public GroupMembership membership() {
        return membership;
    }

    /** How many snapshots this member has installed (a leader's, or its own again after a crash mid-load). */
    public long snapshotsInstalled() {
        return stateMachine.snapshotsLoaded();
    }

    /** How many leaders this member has taken up (itself or another) since it opened: elections it saw. */
    public long leaderChanges() {
        return stateMachine.leaderChanges();
    }

    /** How many log entries this member has written to its database since it opened. */
    public long entriesApplied() {
        return stateMachine.entriesApplied();
    }

    /** Whether {@link #close} has not been called: a monitor reads a member's status only while it is open. */
    public boolean isOpen() {
        return !closed;
    }

    /** Takes a snapshot of this member's state now; jraft then drops the log entries it covers. */
    public void snapshot() {
        CompletableFuture<Status> status = new CompletableFuture<>();
        node.snapshot(status::complete);
        Status s = await(status, "snapshot");
        if (!s.isOk()) {
            throw failure(s, "snapshot");
        }
    }

    /** The first index of this member's Raft log in the shared engine, if it holds any. */
    public OptionalLong firstLogIndex() throws IOException {
        return process.log().firstLogIndex(group + "/log");
    }

    /**
     * Tells {@code listener} of every entry applied and snapshot loaded from now on, on the state-machine
     * thread (see {@link ApplyListener}). One listener at a time; the newest wins.
     */
    public void onApplied(ApplyListener listener) {
        stateMachine.listener(listener == null ? ApplyListener.NONE : listener);
    }

    DbStateMachine stateMachine() {
        return stateMachine;
    }

    Node node() {
        return node;
    }

    ReplicationProcess process() {
        return process;
    }

    ReplicationException failure(Status status, String what) {
        if (status.getRaftError() == RaftError.ECANCELED && DbStateMachine.REFUSED.equals(status.getErrorMsg())) {
            return new EntryRefusedException(what + " in group " + group + " was " + DbStateMachine.REFUSED);
        }
        return new ReplicationException(what + " in group " + group + " at " + address() + " failed: " + status);
    }

    /**
     * A read refused with EPERM ran on no leader and changed nothing: the caller may go to the leader. (A
     * write refused after it was proposed is reported by {@link #failure}: it may still commit.)
     */
    private ReplicationException readFailure(Status status) {
        if (status.getRaftError() == RaftError.EPERM) {
            return notLeader();
        }
        return failure(status, "read");
    }

    private NotLeaderException notLeader() {
        return new NotLeaderException(group, address(), leader().orElse(null));
    }

    /** Waits for {@code future} as long as a request may take; how it failed becomes a {@link ReplicationException}. */
    <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(options.requestTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ReplicationException r) {
                throw r;
            }
            throw new ReplicationException(what + " in group " + group + " failed", cause);
        } catch (TimeoutException e) {
            throw new ReplicationException(what + " in group " + group + " did not complete in "
                    + options.requestTimeoutMs() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReplicationException(what + " in group " + group + " was interrupted", e);
        }
    }

    /**
     * Stops the Raft node, then closes the database (and the process, if this opened it). The group is
     * released and the process closed even when the database fails to close (after an I/O error it cannot
     * sync its log), so the port and the shared log are never left held; that failure is then thrown.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        service.shutdown();
        try {
            service.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                if (!sharedDb) {
                    db.close();
                }
            } finally {
                process.release(group);
                if (ownsProcess) {
                    process.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        return "ReplicatedDb[" + group + "@" + address() + "]";
    }
}
