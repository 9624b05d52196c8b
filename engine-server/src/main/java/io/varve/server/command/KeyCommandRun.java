package io.varve.server.command;

import io.varve.base.concurrent.LockStripes;
import io.varve.server.resp.Reply;
import io.varve.server.store.Keyspace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * One connection's consecutive writes to one key, run under the key's stripe lock taken once and committed as
 * one engine batch.
 *
 * <p>Why: a write holds its key's stripe lock from its first read to its commit, so the writes of one hot key
 * follow each other at the commit pipeline's latency, and each pays a commit (sequence numbers, log append,
 * publication) of its own. Run together, N pipelined writes to the key pay one lock hand-over and one commit.
 *
 * <p>What joins. A request is only taken here; it runs when the run is committed, before any other request
 * of the connection runs. It joins if its command qualifies from its {@link CommandSpec} alone
 * ({@link #qualifies}: a write with key specs, no subcommands, not blocking, not admin, not a script or
 * transaction command, no movable keys, touching no database beyond its key) and its arguments name exactly
 * one key, the run's key, in the database the run's first request was taken in. At most
 * {@link #MAX_COMMANDS} requests and {@link #MAX_BYTES} bytes of arguments join one run.
 *
 * <h2>Why Redis's semantics hold</h2>
 * {@link #commit} runs the requests in order, each through its handler as the dispatcher would run it, with
 * every commit gathered by {@link Keyspace#commitTogether} into one batch that the later requests' reads
 * already see, and then writes that batch. Throughout it holds the command gate's shared side (an EXEC or a
 * script never sees part of the run) and the key's stripe lock (every other write of the key comes before
 * or after the whole run; the handlers take the same, reentrant, lock again). Readers take no lock: until
 * the batch is written they see the key as it was before the run, after it the whole run, as the batch is
 * atomic. So every client sees the requests' effects as if they had run one by one at the instant of the
 * commit. A request that fails (WRONGTYPE, a syntax error) fails before writing, as it would alone: its
 * error is its reply and the others keep their effect. Replies are written to the connection's buffer as the
 * requests run and leave with it, after the commit; if the final write fails, every request of the run is
 * answered with its error instead, as a lone command whose commit fails is.
 *
 * <h2>What happens after each command happens after the commit</h2>
 * What the dispatcher does once a write has committed — mark the WATCHes of its key, offer the key to the
 * clients blocked on it, count the call in INFO commandstats, latency and the slow log — is done for every
 * request of the run once the batch is written (still inside the gate), in order. The run is taken only
 * when what would observe a command as it runs is off: no MONITOR, no client tracking, no keyspace
 * notifications (the dispatcher publishes those per command), no CLIENT REPLY OFF/SKIP, no MULTI, no CLIENT
 * PAUSE holding writes, no ACL restrictions, not replicated, and no client blocked on the key. The last one
 * is read with the key's lock held, under which blocking commands register, so none registers before the
 * commit: one by one, a blocked BLPOP would be served between two pushes and take the first element, while
 * after a run it would take the last. Otherwise — or when the gate is not free at once, or the run holds one
 * request — the requests go through {@link Dispatcher#execute} one by one, as without runs.
 *
 * <p>Replicated servers run the requests one by one: a replicated write waits for its leader's read index
 * before reading, and its commit is a Raft entry applied before the lock is released. A run could be one
 * entry (EXEC's gathered commit is), but the admission of each request would then have to happen once for
 * the whole run, which this class does not attempt.
 *
 * <p>Not thread-safe: it belongs to one connection's drainer.
 */
public final class KeyCommandRun {

    /** A run stops growing at this many bytes of arguments, to bound the gathered batch. */
    static final long MAX_BYTES = 1 << 20;
    /** A run stops growing at this many requests. */
    static final int MAX_COMMANDS = 256;

    private static final Set<CommandFlag> DISQUALIFYING = EnumSet.of(CommandFlag.ADMIN, CommandFlag.BLOCKING,
            CommandFlag.NOSCRIPT, CommandFlag.MOVABLEKEYS, CommandFlag.PUBSUB, CommandFlag.NO_MULTI,
            CommandFlag.RUNS_IN_MULTI, CommandFlag.RUNS_QUEUED, CommandFlag.TOUCHES_DATABASE,
            CommandFlag.TOUCHES_ALL_DATABASES, CommandFlag.TOUCHES_KEY_IN_TARGET_DATABASE);

    private final Dispatcher dispatcher;
    /** Told how many requests each run committed together (INFO's count). */
    private final IntConsumer committedTogether;
    private final List<CommandSpec> specs = new ArrayList<>();
    private final List<byte[][]> requests = new ArrayList<>();
    private Connection connection;
    private byte[] key;
    private int database;
    private long bytes;
    /** Runs after a run's requests ran and before their batch is written; tests hold the commit back here. */
    volatile Runnable beforeWrite = () -> { };

    KeyCommandRun(Dispatcher dispatcher, IntConsumer committedTogether) {
        this.dispatcher = dispatcher;
        this.committedTogether = committedTogether;
    }

    /**
     * Whether requests of {@code spec} may run in a key run: decided from the spec alone (see the class
     * comment); the request must still name exactly one key.
     */
    static boolean qualifies(CommandSpec spec) {
        return spec.isWrite() && spec.handler() != null && spec.subcommands().isEmpty()
                && !spec.keySpecs().isEmpty()
                && !(spec.handler() instanceof CoordinatedHandler) && !(spec.handler() instanceof BlockingHandler)
                && java.util.Collections.disjoint(spec.flags(), DISQUALIFYING);
    }

    /**
     * Adds the request to the run if it may join it: the run is empty, or holds requests of the same
     * connection to the same key in the same database and has room. Otherwise leaves the run as it is and
     * returns false; the caller must then {@link #commit} the run before the request runs (or starts a run).
     */
    public boolean offer(Connection from, byte[][] args) {
        CommandSpec spec = dispatcher.table().lookup(args[0]);
        byte[] onlyKey = spec != null && qualifies(spec) && spec.arityAccepts(args.length) ? onlyKey(spec, args) : null;
        if (onlyKey == null) {
            return false;
        }
        long size = 0;
        for (byte[] arg : args) {
            size += arg.length;
        }
        if (requests.isEmpty()) {
            connection = from;
            key = onlyKey;
            database = from.database();
        } else if (from != connection || from.database() != database || !Arrays.equals(onlyKey, key)
                || requests.size() >= MAX_COMMANDS || bytes + size > MAX_BYTES) {
            return false;
        }
        specs.add(spec);
        requests.add(args);
        bytes += size;
        return true;
    }

    /** The one key the arguments name, or null when they name none, several, or cannot be parsed for keys. */
    private static byte[] onlyKey(CommandSpec spec, byte[][] args) {
        try {
            List<Integer> positions = spec.keyPositions(args);
            return positions.size() == 1 ? args[positions.getFirst()] : null;
        } catch (KeySpec.InvalidKeyArguments malformed) {
            return null; // the dispatcher gives the error reply
        }
    }

    public boolean isEmpty() {
        return requests.isEmpty();
    }

    /** Runs the requests taken (together when it may, else one by one), replies to each in order, and empties the run. */
    public void commit(Reply reply) {
        if (requests.isEmpty()) {
            return;
        }
        reply.protocol(connection.protocol()); // a HELLO before the run may have changed it
        try {
            if (requests.size() == 1 || !runTogether(reply)) {
                for (byte[][] args : requests) {
                    dispatcher.execute(connection, args, reply);
                }
            }
        } finally {
            specs.clear();
            requests.clear();
            connection = null;
            key = null;
            bytes = 0;
        }
    }

    /** Whether nothing that watches commands one at a time is on for this run (see the class comment). */
    private boolean unobserved() {
        if (dispatcher.monitors().active() || dispatcher.tracking().active()
                || dispatcher.keyspaceNotifier().enabled()) {
            return false;
        }
        for (CommandSpec spec : specs) {
            if (!dispatcher.admission().runsAtOnce(connection, spec)) {
                return false;
            }
        }
        return true;
    }

    /** What one request of a run did, for the bookkeeping after the commit. */
    private record Ran(long nanos, String error) {
    }

    /** Runs the requests together and returns true; false, having run and replied nothing, when it may not. */
    private boolean runTogether(Reply reply) {
        if (!unobserved()) {
            return false;
        }
        try (CommandGate.Held shared = dispatcher.gate().tryShared()) {
            if (shared == null) {
                return false; // an EXEC or a script holds or waits for the gate: the ordinary path waits
            }
            // Inside the gate the logical database names the same physical one until the gate is left.
            Keyspace keyspace = dispatcher.server().keyspace().inLogical(database);
            int mark = reply.buffer().writerIndex();
            Ran[] ran = new Ran[requests.size()];
            boolean[] waited = {false};
            boolean timed = dispatcher.observer() != Dispatcher.Observer.NONE || dispatcher.slowLog().enabled();
            String failure = null;
            try {
                keyspace.blocking().signalAfter(() -> {
                    try (LockStripes.Held held = keyspace.lock(key)) {
                        if (keyspace.blocking().blockedCount() > 0
                                && keyspace.blocking().waitingOn(keyspace.database().physical(), key) > 0) {
                            waited[0] = true;
                            return;
                        }
                        keyspace.commitTogether(() -> {
                            for (int i = 0; i < ran.length; i++) {
                                ran[i] = runOne(specs.get(i), requests.get(i), reply, timed);
                            }
                            beforeWrite.run();
                        });
                    }
                    for (int i = 0; i < ran.length; i++) {
                        if (ran[i].error() == null) {
                            dispatcher.touchWritten(specs.get(i), connection, requests.get(i));
                        }
                    }
                });
            } catch (RuntimeException e) {
                // The batch was not written: every request of the run fails as a lone one whose commit fails.
                failure = Dispatcher.errorReplyOf(e);
                if (failure == null) {
                    failure = Dispatcher.internalError(specs.getFirst(), e);
                }
                keyspace.setPopHints().forgetAll(); // SPOPs of the run marked members dead that stay
                reply.buffer().writerIndex(mark);
                for (int i = 0; i < ran.length; i++) {
                    reply.error(failure);
                }
            }
            if (waited[0]) {
                return false;
            }
            account(ran, failure, timed);
            return true;
        }
    }

    /** Runs one request of the run as the dispatcher runs a command; returns its time and its error, if any. */
    private Ran runOne(CommandSpec spec, byte[][] args, Reply reply, boolean timed) {
        connection.commandStarted(spec.name());
        int mark = reply.buffer().writerIndex();
        long started = timed ? System.nanoTime() : 0;
        String error = null;
        try {
            spec.handler().handle(new CommandCall(spec, args, connection, dispatcher.server(), reply));
        } catch (RuntimeException e) {
            reply.buffer().writerIndex(mark);
            error = Dispatcher.errorReplyOf(e);
            if (error == null) {
                error = Dispatcher.internalError(spec, e);
            }
            reply.error(error);
        }
        return new Ran(timed ? System.nanoTime() - started : 0, error);
    }

    /** INFO's commandstats and errorstats, the latency histogram and the slow log, for every request of the run. */
    private void account(Ran[] ran, String failure, boolean timed) {
        Dispatcher.Observer observer = dispatcher.observer();
        for (int i = 0; i < ran.length; i++) {
            CommandSpec spec = specs.get(i);
            Ran r = ran[i];
            long nanos = r == null ? 0 : r.nanos();
            String error = failure != null ? failure : r.error();
            if (error != null) {
                observer.errorReplied(error);
            }
            if (timed) {
                observer.executed(spec, nanos, error != null);
                dispatcher.latency().record(spec.name(), nanos);
                if (dispatcher.slowLog().isSlow(nanos) && !spec.has(CommandFlag.SKIP_SLOWLOG)) {
                    dispatcher.slowLog().record(requests.get(i), nanos, connection);
                }
            }
        }
        if (failure == null) {
            committedTogether.accept(ran.length);
        }
    }
}
