package io.varve.server;

import io.netty.channel.EventLoop;
import io.varve.server.command.Dispatcher;
import io.varve.server.command.SetRun;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * Lone plain SETs that different connections of one event loop sent in the same loop iteration, committed
 * as one engine batch by one virtual thread.
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
 * iteration's socket reads. The flush hands the run to a virtual thread, which commits it ({@link SetRun}
 * holds the keys' stripe locks across the commit) and sends one task back to the loop that writes each
 * connection's reply, then releases its token and starts its drainer if requests arrived meanwhile.
 *
 * <p>Semantics are those of {@link SetRun}: blind SETs read nothing, and the batch applies them atomically in
 * offer order, so the outcome is that of running them one after another at the instant of the commit.
 *
 * <p>Threading: {@link #offer} and {@link #flush} run on the event loop only, so the fields need no locking; a
 * run, once handed to its committing thread, is never touched by the loop again.
 */
final class LoopSetBatch {

    private final EventLoop loop;
    private final Dispatcher dispatcher;
    private final Executor committer;
    private final Runnable flush = this::flush;
    private SetRun run;
    private List<ClientSession> sessions = new ArrayList<>();
    private boolean scheduled;

    /** @param committer runs each run's commit; null for a virtual thread per run (tests pass one that waits) */
    LoopSetBatch(EventLoop loop, Dispatcher dispatcher, Executor committer) {
        this.loop = loop;
        this.dispatcher = dispatcher;
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

    /** Event loop, after the iteration's reads: hands the run to a thread that commits it. */
    private void flush() {
        scheduled = false;
        SetRun committing = run;
        List<ClientSession> waiting = sessions;
        run = null;
        sessions = new ArrayList<>();
        if (!waiting.isEmpty()) {
            committer.execute(() -> commit(committing, waiting));
        }
    }

    private void commit(SetRun committing, List<ClientSession> waiting) {
        String failure;
        try {
            failure = committing.commit(); // engine failures come back as the error reply
        } catch (Throwable unexpected) {
            // Still answer and release every session: a connection left holding its token would never run
            // again, and shutdown would wait for it forever.
            System.getLogger(LoopSetBatch.class.getName()).log(System.Logger.Level.ERROR,
                    "committing a shared SET run failed", unexpected);
            failure = "ERR internal error";
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
