package io.varve.server;

import io.netty.channel.EventLoop;
import io.varve.server.command.Dispatcher;
import io.varve.server.command.SetCommandRun;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * Lone plain SETs that different connections of one event loop sent in the same loop iteration, committed
 * as one engine batch: on the event loop itself when that cannot wait long, else by one virtual thread.
 *
 * <h2>Why</h2>
 * With many clients that each wait for their reply (redis-benchmark {@code -c 1000}), every socket read holds
 * one SET. Handed to the connection's drainer one by one, each SET costs a virtual thread start and a carrier
 * wake-up, its own trip through the commit pipeline, and its own task back to the event loop. Measured on two
 * cores, the event loops were then never idle at 1000 clients and throughput fell below that at 50 clients.
 * Here one loop iteration's SETs share one thread start, one commit and one task back.
 *
 * <h2>How</h2>
 * {@link ClientSession#readComplete} offers a read that decoded to exactly one blind SET, from a connection
 * with nothing queued, nothing unwritten and no drainer running. The session then holds its drainer token
 * ({@code running}) and counts one unwritten batch, exactly as a drainer would while executing that SET, so
 * nothing of the connection can run or be answered before it: later reads are queued and wait for the token.
 * The first offer of an iteration schedules {@link #flush} as an event-loop task, which Netty runs after the
 * iteration's socket reads. The flush commits the run right there on the event loop when that cannot wait
 * long ({@link SetCommandRun#tryCommit}: every key's stripe lock free at once, no appendfsync always, no engine
 * write stall) and writes each connection's reply. Otherwise it hands the run to a virtual thread, which
 * commits it, waiting as it must ({@link SetCommandRun} holds the keys' stripe locks across the commit), and sends
 * one task back to the loop that writes the replies. Either way each session then releases its token and
 * starts its drainer if requests arrived meanwhile.
 *
 * <h2>Committing on the event loop</h2>
 * Redis appends to its AOF buffer on its one thread; the engine's commit without fsync is about as cheap
 * (a copy into the log buffer under the log lock, a {@code write} into the page cache, memtable inserts).
 * The hand-off it replaces cost more than the commit: measured on two cores with {@code redis-benchmark -t set},
 * a virtual-thread start, a carrier wake-up and a task back per run were 0.4 context switches per SET at 50
 * clients, and committing on the loop made lone SETs 7-33% faster in alternating runs (docs/server.md).
 * What the loop may still wait for is brief: the engine's log and publication locks, held by other writers
 * for a copy or a {@code write}. What could wait long never runs here: a stripe lock held by a command on a
 * virtual thread (tryLock), an fsync (appendfsync always is handed off), a stopped or slowed engine
 * ({@code WriteOptions.noSlowdown}).
 *
 * <p>Semantics are those of {@link SetCommandRun}: blind SETs read nothing, and the batch applies them atomically in
 * offer order, so the outcome is that of running them one after another at the instant of the commit.
 *
 * <p>Threading: {@link #offer} and {@link #flush} run on the event loop only, so the fields need no locking; a
 * run, once handed to its committing thread, is never touched by the loop again.
 */
final class EventLoopSets {

    private final EventLoop loop;
    private final Dispatcher dispatcher;
    private final ServerStats stats;
    private final Executor committer;
    private final boolean commitOnLoop;
    private final Runnable flush = this::flush;
    private SetCommandRun run;
    private List<ClientSession> sessions = new ArrayList<>();
    private boolean scheduled;

    /**
     * @param committer    runs the commits the loop hands off; null for a virtual thread per run (tests pass one
     *                     that holds them)
     * @param commitOnLoop whether to commit a run on the loop when that cannot wait long (tests turn it off to
     *                     send every run to the committer)
     */
    EventLoopSets(EventLoop loop, Dispatcher dispatcher, ServerStats stats, Executor committer, boolean commitOnLoop) {
        this.loop = loop;
        this.dispatcher = dispatcher;
        this.stats = stats;
        this.commitOnLoop = commitOnLoop;
        ThreadFactory threads = Thread.ofVirtual().name("varve-loop-sets").factory();
        this.committer = committer != null ? committer : task -> threads.newThread(task).start();
    }

    /**
     * Event loop: adds the session's SET to this iteration's run. Returns false, changing nothing, if the
     * request is not a blind SET the connection may run, or the run is full, or the loop is shutting down.
     */
    boolean offer(ClientSession session, byte[][] args) {
        if (loop.isShuttingDown()) {
            return false;
        }
        if (run == null) {
            run = dispatcher.newSetRun();
        }
        if (!run.offer(session.connection(), args)) {
            return false;
        }
        sessions.add(session);
        if (!scheduled) {
            scheduled = true;
            loop.execute(flush);
        }
        return true;
    }

    /** Event loop, after the iteration's reads: commits the run here if that cannot wait long, else hands it off. */
    private void flush() {
        scheduled = false;
        SetCommandRun committing = run;
        List<ClientSession> waiting = sessions;
        run = null;
        sessions = new ArrayList<>();
        if (waiting.isEmpty()) {
            return;
        }
        if (commitOnLoop) {
            SetCommandRun.Attempt attempt;
            try {
                attempt = committing.tryCommit(); // engine failures come back as the error reply
            } catch (Throwable unexpected) {
                attempt = new SetCommandRun.Attempt(true, internalError(unexpected));
            }
            if (attempt.made()) {
                stats.sharedSetRun(true);
                for (ClientSession session : waiting) {
                    session.sharedSetDone(attempt.failure());
                }
                return;
            }
        }
        stats.sharedSetRun(false);
        committer.execute(() -> commit(committing, waiting));
    }

    /**
     * Logs a failure outside the engine's own error handling. The run's sessions still get an answer and their
     * tokens back: a connection left holding its token would never run again, and shutdown would wait for it.
     */
    private static String internalError(Throwable unexpected) {
        System.getLogger(EventLoopSets.class.getName()).log(System.Logger.Level.ERROR,
                "committing a shared SET run failed", unexpected);
        return "ERR internal error";
    }

    private void commit(SetCommandRun committing, List<ClientSession> waiting) {
        String failure;
        try {
            failure = committing.commit(); // engine failures come back as the error reply
        } catch (Throwable unexpected) {
            failure = internalError(unexpected);
        }
        String reply = failure;
        Runnable answer = () -> {
            for (ClientSession session : waiting) {
                session.sharedSetDone(reply);
            }
        };
        try {
            loop.execute(answer);
        } catch (RejectedExecutionException shuttingDown) {
            answer.run(); // the channels are closing; this still releases every session's token
        }
    }
}
