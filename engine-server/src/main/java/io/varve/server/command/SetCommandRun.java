package io.varve.server.command;

import io.varve.server.resp.Reply;
import io.varve.server.store.Databases;
import io.varve.server.store.Keyspace;
import io.varve.server.types.DataTypes;
import io.varve.server.types.StagedStringWrites;

/**
 * Plain SETs committed as one engine batch: consecutive ones from one connection's pipeline, or lone ones
 * from many connections.
 *
 * <p>Why: pipelined, most of a SET's cost is its own engine commit (sequence numbers, log append, a write
 * system call, publication). One commit for a run of N SETs pays that once.
 *
 * <p>Why Redis's semantics hold. Only <em>blind</em> SETs join a run (no NX, XX, GET or KEEPTTL): they read
 * nothing, so their outcome does not depend on when they run. {@link #commit} holds the stripe locks of every
 * key in the run (taken together, in the usual ascending order, by {@link StagedStringWrites}, which owns the
 * batch) across the one commit, exactly as a lone SET holds its lock across its commit, so read-modify-write
 * commands of other connections see each key before or after the run, never in between. The batch is atomic and applied in arrival order (a later SET
 * of the same key wins), and no reply is written before the commit. The caller commits the run before it
 * executes any other command of the connection, so that command sees every SET before it. The outcome is
 * therefore the one the SETs would have had executed one by one, at the instant of the commit.
 *
 * <p>The same reasoning covers a run whose SETs come from different connections ({@code EventLoopSets}):
 * each connection's SET is then the only command of that connection in flight. The SETs of a run may be in
 * different databases: each is staged in the physical database its connection's logical one names when it
 * joins, and its watchers are those of the logical database stored there at the commit.
 *
 * <p>Replicated, a run is one Raft entry, proposed by the thread that commits it, and SETs join it only on a
 * leader that may take them without waiting ({@link ReplicaRouting#takesBlindWriteAtOnce}): no read index,
 * since they read nothing, and the locks are held until the entry is applied here, as for any replicated
 * commit. Elsewhere they go through {@link Dispatcher#execute}, which redirects or waits.
 *
 * <p>Not thread-safe: it belongs to one thread at a time (a connection's drainer, or an event loop that
 * fills it and then hands it to the thread that commits it).
 */
public final class SetCommandRun {

    /** A run stops growing at this many bytes of keys and values, to bound one engine batch. */
    static final long MAX_BYTES = 1 << 20;

    private final Dispatcher dispatcher;
    private final CommandSpec set;
    private final StagedStringWrites staged;
    private long bytes;
    private long started;

    SetCommandRun(Dispatcher dispatcher, CommandSpec set) {
        this.dispatcher = dispatcher;
        this.set = set;
        this.staged = dispatcher.server().types().stagedStringWrites();
    }

    /**
     * Adds the request to the run if it is a blind SET that the connection may run and that parses; else
     * leaves the run as it is and returns false, and the caller must {@link #commit} the run before running
     * the request through {@link Dispatcher#execute}.
     */
    public boolean offer(Connection connection, byte[][] args) {
        if (args.length < 3 || dispatcher.table().lookup(args[0]) != set || dispatcher.monitors().active()
                || !dispatcher.admission().blindWriteRunsAtOnce(connection, set, args[1])
                || dispatcher.keyspaceNotifier().enabled() // the dispatcher publishes a SET's events
                || dispatcher.tracking().active()) { // the dispatcher skips a NOLOOP client's own writes
            return false;
        }
        long size = args[1].length + args[2].length;
        if (bytes + size > MAX_BYTES && !staged.isEmpty()) {
            return false;
        }
        Keyspace ks = dispatcher.server().keyspace();
        DataTypes types = dispatcher.server().types().in(ks.databases().database(connection.database()));
        long expireAt;
        try {
            SetCommandOptions options = SetCommandOptions.parse(args);
            if (!options.blind()) {
                return false;
            }
            expireAt = options.expireAt(ks.now());
            if (!types.strings().fits(args[1], args[2].length)) {
                return false; // the ordinary path refuses it
            }
        } catch (RuntimeException malformed) {
            return false; // the ordinary path gives the error reply
        }
        if (staged.isEmpty()) {
            started = System.nanoTime();
        }
        connection.commandStarted(set.name());
        staged.stage(types.strings(), args[1], args[2], expireAt);
        bytes += size;
        return true;
    }

    public boolean isEmpty() {
        return staged.isEmpty();
    }

    /** Commits the run and writes one reply per SET, in order; then the run is empty again. */
    public void commit(Reply reply) {
        int count = staged.size();
        String failure = commit();
        for (int i = 0; i < count; i++) {
            if (failure == null) {
                reply.ok();
            } else {
                reply.error(failure);
            }
        }
    }

    /**
     * Commits the run and empties it; returns null on success, else the error reply every SET of the run
     * gets. For callers that answer each SET somewhere else ({@code EventLoopSets}: one per connection).
     */
    public String commit() {
        return staged.isEmpty() ? null : commit(false).failure();
    }

    /** What {@link #tryCommit} did: nothing ({@link #NOT_NOW}), or committed with a failure reply or none. */
    public record Attempt(boolean made, String failure) {
        public static final Attempt NOT_NOW = new Attempt(false, null);
        static final Attempt SUCCEEDED = new Attempt(true, null);
    }

    /**
     * {@link #commit} for a thread that must not block: commits only if every key's lock is free right now and
     * the engine can take the write without waiting (no appendfsync always, no write stall). Otherwise changes
     * nothing and returns {@link Attempt#NOT_NOW}; the run must then be committed with {@link #commit} on a
     * thread that may wait. The engine's commit may still take its own locks for a moment (log append,
     * publication), never for file-system syncs.
     */
    public Attempt tryCommit() {
        return staged.isEmpty() ? Attempt.SUCCEEDED : commit(true);
    }

    /** Commits a non-empty run, waiting for locks and the engine unless {@code withoutWaiting}. */
    private Attempt commit(boolean withoutWaiting) {
        String failure = null;
        // The gate's shared side, as every command holds it: an EXEC never sees part of the run.
        try (CommandGate.Held gate = withoutWaiting ? dispatcher.gate().tryShared() : dispatcher.gate().shared()) {
            if (gate == null || !staged.commit(withoutWaiting)) {
                return Attempt.NOT_NOW;
            }
            // Watchers are keyed by the logical database stored in each key's physical one, which cannot
            // change while the gate is held (SWAPDB takes it exclusively).
            Databases databases = dispatcher.server().keyspace().databases();
            for (int i = 0; i < staged.size(); i++) {
                dispatcher.touchWritten(databases.logical(staged.physicalDatabase(i)), staged.key(i));
            }
        } catch (RuntimeException e) {
            // A replicated commit refuses with Redis's words (TRYAGAIN, unknown outcome); anything else is a bug.
            failure = Dispatcher.errorReplyOf(e);
            if (failure == null) {
                failure = Dispatcher.internalError(set, e);
            }
        }
        finish(failure);
        return failure == null ? Attempt.SUCCEEDED : new Attempt(true, failure);
    }

    /** Reports the committed SETs and empties the run. */
    private void finish(String failure) {
        long nanos = System.nanoTime() - started;
        for (int i = 0; i < staged.size(); i++) {
            dispatcher.observer().executed(set, nanos, failure != null);
            dispatcher.latency().record("set", nanos);
        }
        staged.clear();
        bytes = 0;
    }
}
