package io.varve.server.command;

import io.varve.server.pubsub.KeyspaceNotifier;
import io.varve.server.pubsub.PubSubRegistry;
import io.varve.server.resp.RedisError;
import io.varve.server.store.AppliedChanges;
import io.varve.server.store.Databases;
import io.varve.server.store.KeyEncoding;
import io.varve.server.resp.Reply;
import io.varve.server.scripting.Scripting;
import io.varve.server.store.Keyspace;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import io.varve.server.store.WrongTypeException;
import io.varve.server.types.IndexOutOfRangeException;
import io.varve.server.types.NoSuchKeyException;
import io.varve.server.types.NotANumberScoreException;
import io.varve.server.types.StreamError;
import io.varve.server.types.hyperloglog.CorruptHyperLogLogException;
import io.varve.server.types.hyperloglog.NotAHyperLogLogException;
import io.varve.server.types.ValueTooLargeException;

import java.nio.charset.StandardCharsets;

/**
 * Runs one request: asks {@link Admission} whether to refuse it, queue it inside MULTI or run it (having
 * waited out a CLIENT PAUSE), and runs the handler (which reaches its connection's database through
 * {@link CommandCall#types}), inside
 * the {@link CommandGate}'s shared side and the replica routing's {@link ReplicaRouting#run} (a follower holds
 * off installing a snapshot meanwhile); turns a {@link RedisError} into an error reply. A handler that fails
 * after writing part of its reply has that part discarded, so the reply stream always stays one well-formed
 * reply per request.
 *
 * <p>Thread-safe; the caller guarantees one connection's requests run one at a time, in order. The
 * dispatcher owns the server-wide coordination state that commands share beyond the keyspace — the command
 * gate, the {@link WatchRegistry}, the pub/sub registry, the slow log and the client pause — and hands it to
 * the commands that need it ({@link CoordinatedHandler}). Invariants: the gate is taken before any stripe
 * lock and never while waiting for a client (pauses are waited out before it); a blocking command runs in
 * the shared side like any other — its attempt, its pop, the waiters its writes serve — and only its wait
 * happens outside, as a parked reply that holds no thread (a writer serves it later, inside that writer's
 * own hold of the gate); a write touches its watched keys before it leaves the gate, so EXEC, in the
 * exclusive side, sees every earlier write.
 */
public final class Dispatcher {

    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    /** Told about every executed command, for metrics and INFO commandstats/errorstats. */
    public interface Observer {
        void executed(CommandSpec spec, long nanos, boolean failed);

        void rejected();

        /** A known command refused before running (wrong arity, not authenticated, subscriber mode). */
        default void rejectedCall(CommandSpec spec) {
        }

        /** An error reply was sent, e.g. "ERR ..." or "WRONGTYPE ...". */
        default void errorReplied(String error) {
        }

        /** A parked command's wait ended in an error reply: a failed call (the call counted when it ran). */
        default void failedAfterParking(CommandSpec spec) {
        }

        Observer NONE = new Observer() {
            @Override
            public void executed(CommandSpec spec, long nanos, boolean failed) {
            }

            @Override
            public void rejected() {
            }
        };
    }

    private final CommandTable table;
    private final ServerContext server;
    private final Observer observer;
    private final CommandSpec get;
    private final CommandGate gate = new CommandGate();
    private final SlowLog slowLog = new SlowLog();
    private final LatencyHistogram latency = new LatencyHistogram();
    private final Monitors monitors = new Monitors();
    private final ClientPause pause = new ClientPause();
    private final WatchRegistry watches = new WatchRegistry();
    private final Admission admission;
    private final PubSubRegistry pubSub = new PubSubRegistry(pattern -> new Glob(pattern)::matches);
    private final KeyspaceNotifier keyspaceNotifier = new KeyspaceNotifier(pubSub);
    private final KeyspaceEvents keyspaceEvents = new KeyspaceEvents(keyspaceNotifier);
    private final TrackingTable tracking;
    private final AclRegistry acl = new AclRegistry();
    /** Made by the first script command: a server that runs none never builds a Lua interpreter. */
    private volatile Scripting scripting;
    /** Runs after each command a script runs; tests use it to force an interleaving there. */
    volatile Runnable scriptCommandProbe = () -> { };

    public Dispatcher(CommandTable table, ServerContext server, Observer observer) {
        this.table = table;
        this.server = server;
        this.observer = observer;
        this.get = table.lookup("get");
        this.admission = new Admission(table, server, pause, acl);
        this.tracking = new TrackingTable(server::clients);
    }

    public CommandTable table() {
        return table;
    }

    /**
     * A parked command of {@code connection} was answered {@code error} when its wait ended (a group
     * destroyed, CLIENT UNBLOCK ERROR, a failed serve): counted as Redis counts it, a failed call and an
     * error reply.
     */
    public void parkedCommandFailed(Connection connection, String error) {
        CommandSpec spec = table.lookup(connection.lastCommand());
        if (spec != null) {
            observer.failedAfterParking(spec);
        }
        observer.errorReplied(error);
    }

    public void execute(Connection connection, byte[][] args, Reply reply) {
        if (!connection.repliesAltered()) {
            executeReplying(connection, args, reply);
        } else {
            ClientReplyMode.executeSilenced(connection, args, reply, this::executeReplying);
        }
        if (tracking.active()) {
            tracking.limit(trackingTableMaxKeys());
            tracking.flushBroadcasts();
        }
    }

    private void executeReplying(Connection connection, byte[][] args, Reply reply) {
        MultiState tx = connection.transaction();
        Admission.Decision decision = admission.admit(connection, args);
        CommandSpec spec = decision.spec();
        switch (decision.outcome()) {
            case REFUSE -> {
                if (decision.byRouting() && spec.handler() == TransactionCommands.EXEC) {
                    TransactionCommands.discardRefused(connection, this); // as Redis Cluster: EXEC refused whole
                }
                reject(tx, reply, spec, decision.error());
            }
            case QUEUE -> {
                String busy = ScriptExecution.busyRefusal(this, decision.effective());
                if (busy != null) {
                    reject(tx, reply, spec, busy); // as Redis: refused, not queued, and EXEC will abort
                    return;
                }
                tx.queue(args, decision.writes());
                reply.simple("QUEUED");
            }
            case RUN -> {
                String busy = ScriptExecution.busyRefusal(this, decision.effective());
                if (busy != null) {
                    rejectBusy(connection, tx, reply, spec, busy);
                    return;
                }
                if (spec.handler() instanceof CoordinatedHandler) {
                    // they take the side of the gate they need themselves
                    run(spec, decision.effective(), connection, args, reply);
                    return;
                }
                // a script that runs past the busy threshold turns the wait into a BUSY reply
                try (CommandGate.Held shared = decision.effective().has(CommandFlag.ALLOW_BUSY) ? gate.shared()
                        : gate.sharedUnless(() -> ScriptExecution.busyRefusal(this, decision.effective()) != null)) {
                    if (shared == null) {
                        rejectBusy(connection, tx, reply, spec, scripting.busyError());
                        return;
                    }
                    run(spec, decision.effective(), connection, args, reply);
                }
            }
        }
    }

    /** Redis's text for a container command (CLIENT, OBJECT, ...) given a subcommand it does not have. */
    static String unknownSubcommand(CommandSpec container, byte[][] args) {
        String sub = new String(args[1], StandardCharsets.UTF_8);
        return "ERR unknown subcommand '" + (sub.length() > 128 ? sub.substring(0, 128) : sub) + "'. Try "
                + container.name().toUpperCase(java.util.Locale.ROOT) + " HELP.";
    }

    /** BUSY; an EXEC refused so discards its transaction and says why, in Redis's words. */
    private void rejectBusy(Connection connection, MultiState tx, Reply reply, CommandSpec spec, String busy) {
        if (spec.handler() == TransactionCommands.EXEC && tx.active()) {
            TransactionCommands.discardRefused(connection, this);
            busy = "EXECABORT Transaction discarded because of: " + busy;
        }
        reject(tx, reply, spec, busy);
    }

    private void reject(MultiState tx, Reply reply, CommandSpec spec, String error) {
        observer.rejected();
        if (spec != null) {
            observer.rejectedCall(spec);
        }
        observer.errorReplied(error);
        tx.fail();
        reply.error(error);
    }

    /** Runs one queued command of an EXEC, whose caller holds the gate's exclusive side. */
    void executeInsideExec(Connection connection, byte[][] args, Reply reply) {
        CommandSpec spec = table.lookup(args[0]); // looked up and checked when it was queued
        CommandSpec sub = spec.subcommand(args);
        run(spec, sub == null ? spec : sub, connection, args, reply);
    }

    /** Runs the command where its routing says it runs (see {@link ReplicaRouting#run}). */
    private void run(CommandSpec spec, CommandSpec effective, Connection connection, byte[][] args, Reply reply) {
        server.routing().run(() -> runHere(spec, effective, connection, args, reply));
    }

    /**
     * Runs {@code spec}'s handler; {@code effective} is the subcommand it names, or {@code spec} itself. The
     * handler reaches its connection's database through {@link CommandCall#types}.
     */
    private void runHere(CommandSpec spec, CommandSpec effective, Connection connection, byte[][] args,
                         Reply reply) {
        connection.commandStarted(spec.name());
        int mark = reply.buffer().writerIndex();
        // Two clock reads per command show in profiles of pipelined GETs: skip them unless someone observes.
        boolean timed = observer != Observer.NONE || slowLog.enabled();
        long started = timed ? System.nanoTime() : 0;
        boolean failed = false;
        try {
            CommandCall call = new CommandCall(spec, args, connection, server, reply);
            if (spec.handler() instanceof CoordinatedHandler coordinated) {
                coordinated.handle(call, this);
            } else if (spec.handler() instanceof BlockingHandler blocking) {
                // It marks what it pops while it holds its keys' locks; serving the clients blocked on those
                // keys takes other keys' locks, so it waits until the command has released its own.
                Runnable run = () -> server.keyspace().blocking().signalAfter(() -> blocking.handle(call, this));
                if (keyspaceEvents.observes(spec)) {
                    keyspaceEvents.run(call, run); // the events of what it did at once
                } else {
                    run.run();
                }
            } else if (keyspaceEvents.observes(spec)) {
                keyspaceEvents.run(call);
            } else {
                spec.handler().handle(call);
            }
        } catch (RuntimeException e) {
            failed = true;
            reply.buffer().writerIndex(mark);
            String error = errorReplyOf(e);
            if (error == null) {
                error = internalError(spec, e);
            }
            reply.error(error);
            observer.errorReplied(error);
        }
        String unconfirmed = server.routing().confirmAnswer();
        if (unconfirmed != null) {
            failed = true;
            reply.buffer().writerIndex(mark);
            reply.error(unconfirmed);
            observer.errorReplied(unconfirmed);
        }
        if (!failed && effective.isWrite() && !(spec.handler() instanceof BlockingHandler)) {
            touchWritten(effective, connection, args); // a blocking command marks what it writes, when it writes
        }
        if (tracking.active()) {
            tracking.afterCommand(effective, connection, args, failed);
        }
        monitors.executed(effective, connection, args);
        if (timed) {
            long nanos = System.nanoTime() - started;
            observer.executed(spec, nanos, failed);
            latency.record(effective.name(), nanos);
            if (slowLog.isSlow(nanos) && !effective.has(CommandFlag.SKIP_SLOWLOG)) {
                slowLog.record(args, nanos, connection);
            }
        }
    }

    /**
     * Marks the transactions watching what a write command changed (see {@link WatchRegistry}): its keys as
     * its key specs find them, and the databases its flags say it touches; tells the clients tracking those
     * keys ({@link TrackingTable}) and offers the keys to the clients blocked on them.
     */
    void touchWritten(CommandSpec spec, Connection connection, byte[][] args) {
        if (spec.has(CommandFlag.TOUCHES_ALL_DATABASES)) {
            watches.touchDatabase(-1);
            tracking.invalidateAll();
            server.keyspace().blocking().signalDatabase(-1);
            return;
        }
        int database = connection.database();
        if (spec.has(CommandFlag.TOUCHES_DATABASE)) {
            watches.touchDatabase(database);
            tracking.invalidateAll();
            server.keyspace().blocking().signalDatabase(server.keyspace().databases().physical(database));
            return;
        }
        int physical = server.keyspace().databases().physical(database);
        try {
            for (KeySpec keys : spec.keySpecs()) {
                keys.forEachKey(args, i -> {
                    watches.touch(database, args[i]);
                    tracking.invalidate(args[i], connection);
                    // a deleted or retyped key fails the stream group readers blocked on it
                    server.keyspace().blocking().signal(physical, args[i]);
                });
            }
        } catch (KeySpec.InvalidKeyArguments unreachable) {
            return; // the command succeeded, so its arguments parsed; nothing more to mark
        }
        if (spec.name().equals("copy")) {
            // COPY names its destination's database in an option (DB n), which no key spec can say
            watches.touch(ObjectCommands.targetDatabase(args, database), args[2]);
        }
        if (spec.has(CommandFlag.TOUCHES_KEY_IN_TARGET_DATABASE)) {
            Long target = Args.tryParseLong(args[args.length - 1]);
            if (target != null && target >= 0 && target <= Integer.MAX_VALUE) {
                for (int i : spec.keyPositions(args)) {
                    watches.touch(target.intValue(), args[i]);
                }
            }
        }
    }

    /**
     * Keys written outside {@link #execute} (runs of SETs) touch their watchers through here; {@code database}
     * is the logical database the key was written in (-1: one no client can select, so no watcher).
     */
    void touchWritten(int database, byte[] key) {
        if (database < 0) {
            return;
        }
        watches.touch(database, key);
        tracking.invalidate(key, null);
        server.keyspace().blocking().signal(server.keyspace().databases().physical(database), key);
    }

    /**
     * Marks the watchers of keys changed without a command of this server (replicated entries applied here,
     * installed snapshots). A metadata key names its database; a subkey does not (its version ties it to
     * one key), so its key is marked in every database.
     */
    public AppliedChanges watchMarker() {
        Databases databases = server.keyspace().databases();
        return new AppliedChanges() {
            @Override
            public void written(byte[] engineKey) {
                if (KeyEncoding.isMetadataKey(engineKey)) {
                    int logical = databases.logical(KeyEncoding.databaseOfMetadata(engineKey));
                    if (logical >= 0) {
                        watches.touch(logical, KeyEncoding.userKeyOfMetadata(engineKey));
                    }
                    return;
                }
                int prefix = KeyEncoding.subkeyPrefixLength(engineKey);
                if (prefix > 0) {
                    byte[] key = KeyEncoding.userKeyOfSubkey(engineKey, prefix);
                    for (int d = 0; d < databases.count(); d++) {
                        watches.touch(d, key);
                    }
                }
            }

            @Override
            public void replaced() {
                watches.touchDatabase(-1);
            }
        };
    }

    /** The connection is gone: its watched keys are forgotten. Any thread. */
    public void connectionClosed(Connection connection) {
        TransactionCommands.unwatchAll(connection, this);
        PubSubCommands.unsubscribeAll(connection, this);
        monitors.remove(connection);
        tracking.disable(connection);
        acl.forget(connection);
    }

    /** Keyspace notifications ({@code notify-keyspace-events}). */
    public KeyspaceNotifier keyspaceNotifier() {
        return keyspaceNotifier;
    }

    /** The server's scripting, made on first use. */
    Scripting scripting() {
        Scripting s = scripting;
        if (s == null) {
            synchronized (this) {
                s = scripting;
                if (s == null) {
                    s = new Scripting();
                    FunctionCommands.loadStored(server.keyspace(), s.functions());
                    scripting = s;
                }
            }
        }
        return s;
    }

    /** The scripting if a script command has run, else null (no script can be running). */
    Scripting scriptingIfStarted() {
        return scripting;
    }

    public PubSubRegistry pubSub() {
        return pubSub;
    }

    Monitors monitors() {
        return monitors;
    }

    /** ACL users and the user each connection is authenticated as. */
    AclRegistry acl() {
        return acl;
    }

    /** Client-side caching: who tracks which keys (CLIENT TRACKING). */
    public TrackingTable tracking() {
        return tracking;
    }

    /** CONFIG's tracking-table-max-keys (0: no limit). */
    private long trackingTableMaxKeys() {
        String value = server.configuration().get("tracking-table-max-keys");
        Long max = value == null ? null : Args.tryParseLong(value.getBytes(StandardCharsets.US_ASCII));
        return max == null ? 0 : max;
    }

    public LatencyHistogram latency() {
        return latency;
    }

    public SlowLog slowLog() {
        return slowLog;
    }

    Admission admission() {
        return admission;
    }

    ClientPause pause() {
        return pause;
    }

    CommandGate gate() {
        return gate;
    }

    WatchRegistry watches() {
        return watches;
    }

    /**
     * Runs a plain {@code GET key} of an authenticated connection from what the engine holds in memory
     * ({@link Keyspace#lookupInMemory}), on the calling thread, if that decides it; the reply and the bookkeeping are those {@link #execute} would give
     * (value or nil, expired keys absent, WRONGTYPE for other types, hit and miss counts, metrics). Returns
     * false, having written and counted nothing, when the request is anything else or the answer needs
     * table data that is not in memory: then the caller must {@link #execute} it where blocking is allowed. Never touches the disk,
     * so event loops may call it.
     */
    public boolean executeFromMemory(Connection connection, byte[][] args, Reply reply) {
        if (get == null || args.length != 2 || !Args.isKeyword(args[0], "get") || monitors.active() || tracking.active()
                || !admission.runsAtOnce(connection, get)) {
            return false;
        }
        try (CommandGate.Held shared = gate.tryShared()) {
            // Inside the gate: the connection's logical database names the same physical one until it is left.
            return shared != null && getFromMemory(server.keyspace().inLogical(connection.database()), connection,
                    args, reply);
        }
    }

    private boolean getFromMemory(Keyspace keyspace, Connection connection, byte[][] args, Reply reply) {
        boolean timed = observer != Observer.NONE;
        long started = timed ? System.nanoTime() : 0;
        Metadata meta;
        try {
            meta = keyspace.lookupInMemory(args[1]);
        } catch (RuntimeException e) {
            return false; // a closing engine or a damaged record: the ordinary path reports it
        }
        if (meta == Keyspace.IN_TABLES) {
            return false;
        }
        connection.commandStarted(get.name());
        boolean wrongType = meta != null && meta.type() != RedisType.STRING;
        if (wrongType) {
            reply.error(RedisError.WRONG_TYPE);
        } else {
            reply.bulk(meta == null ? null : meta.value());
        }
        if (timed) {
            long nanos = System.nanoTime() - started;
            observer.executed(get, nanos, wrongType);
            latency.record("get", nanos);
        }
        return true;
    }

    /**
     * The error reply for a command's failure, or null if the failure is unexpected: the one place where the
     * store's and the types' typed exceptions become Redis's error words.
     */
    static String errorReplyOf(RuntimeException e) {
        if (e instanceof RedisError error) {
            return error.getMessage();
        }
        if (e instanceof WrongTypeException) {
            return RedisError.WRONG_TYPE;
        }
        if (e instanceof NoSuchKeyException) {
            return RedisError.NO_SUCH_KEY;
        }
        if (e instanceof ValueTooLargeException || ValueTooLargeException.isEngineRefusal(e)) {
            return RedisError.STRING_TOO_LONG;
        }
        if (e instanceof NotAHyperLogLogException || e instanceof CorruptHyperLogLogException) {
            return e.getMessage();
        }
        if (e instanceof NotANumberScoreException) {
            return RedisError.NAN_SCORE;
        }
        if (e instanceof IndexOutOfRangeException) {
            return "ERR index out of range";
        }
        if (e instanceof StreamError) {
            return e.getMessage();
        }
        return null;
    }

    /** Logs an unexpected failure of a command and returns the error reply that reports it. */
    static String internalError(CommandSpec spec, RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "command " + spec.name() + " failed", e);
        return "ERR internal error while running '" + spec.name() + "': " + e;
    }

    /** A run for grouping this connection's pipelined plain SETs into one commit (see {@link SetCommandRun}). */
    public SetCommandRun newSetRun() {
        return new SetCommandRun(this, table.lookup("set"));
    }

    /**
     * A run for grouping this connection's consecutive writes to one key into one commit (see
     * {@link KeyCommandRun}); {@code committedTogether} is told how many requests each run committed together.
     */
    public KeyCommandRun newKeyRun(java.util.function.IntConsumer committedTogether) {
        return new KeyCommandRun(this, committedTogether);
    }

    ServerContext server() {
        return server;
    }

    Observer observer() {
        return observer;
    }

    /** Redis's exact text: the name and the first arguments, each quoted, each cut to fit 128 bytes. */
    static String unknownCommand(byte[][] args) {
        StringBuilder listed = new StringBuilder();
        for (int i = 1; i < args.length && listed.length() < 128; i++) {
            String a = new String(args[i], StandardCharsets.UTF_8);
            int room = 128 - listed.length();
            listed.append('\'').append(a, 0, Math.min(a.length(), room)).append("' ");
        }
        String name = new String(args[0], StandardCharsets.UTF_8);
        if (name.length() > 128) {
            name = name.substring(0, 128);
        }
        return "ERR unknown command '" + name + "', with args beginning with: " + listed;
    }
}
