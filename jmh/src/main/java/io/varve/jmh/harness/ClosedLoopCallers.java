package io.varve.jmh.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed number of callers that each issue one operation after another for as long as they run (a closed
 * loop: a caller's next request waits for its previous answer), driven in one of three ways:
 * <ul>
 *   <li>{@link Driver#PLATFORM}: one platform thread per caller, the thread-per-request server;</li>
 *   <li>{@link Driver#POOL}: a fixed pool of {@link #POOL_THREADS} platform threads with a queue holding one
 *       pending request per caller, the thread-pool server: a finished request re-queues its caller;</li>
 *   <li>{@link Driver#VIRTUAL}: one virtual thread per caller.</li>
 * </ul>
 * The measuring thread calls {@link #awaitCompletions(long)} to wait until the callers together have
 * completed a number of operations, so a benchmark invocation measures completed operations over a window,
 * whatever the number of callers.
 *
 * <p>Concurrency: {@link #completed} counts operations across callers; the caller whose increment reaches
 * the waiter's {@link #target} unparks it. The waiter also wakes every millisecond, which covers the one race
 * (the count passing the target before the target was published) at a bounded cost, and checks whether a
 * caller failed. {@link #stop()} clears {@link #running}, which every caller reads before its next operation,
 * and joins them all.
 */
public final class ClosedLoopCallers {

    /** The worker threads of the {@link Driver#POOL} driver: a typical fixed server pool on a small machine. */
    public static final int POOL_THREADS = 16;

    public enum Driver { PLATFORM, POOL, VIRTUAL }

    /** One caller's operation loop body; called repeatedly by one thread at a time, never concurrently. */
    public interface Caller {
        void call();
    }

    private final AtomicLong completed = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private volatile long target = Long.MAX_VALUE;
    private volatile Thread waiter;
    private ExecutorService pool;

    /** Starts {@code callers.size()} callers under {@code driver}. */
    public ClosedLoopCallers(Driver driver, List<Caller> callers) {
        switch (driver) {
            case PLATFORM -> callers.forEach(c -> threads.add(
                    Thread.ofPlatform().daemon().name("caller").start(() -> loop(c))));
            case VIRTUAL -> callers.forEach(c -> threads.add(Thread.ofVirtual().name("caller").start(() -> loop(c))));
            case POOL -> {
                pool = Executors.newFixedThreadPool(POOL_THREADS, Thread.ofPlatform().daemon().name("pool-", 0)
                        .factory());
                callers.forEach(c -> pool.execute(new Request(c)));
            }
        }
    }

    /** A caller's pending request in the pool's queue: runs one operation, then queues the next. */
    private final class Request implements Runnable {
        private final Caller caller;

        Request(Caller caller) {
            this.caller = caller;
        }

        @Override
        public void run() {
            if (!running || !once(caller)) {
                return;
            }
            try {
                pool.execute(this);
            } catch (RejectedExecutionException e) {
                // stop() shut the pool down after this request read running: the caller is done
                if (running) {
                    throw e;
                }
            }
        }
    }

    private void loop(Caller caller) {
        while (running && once(caller)) {
            // next operation
        }
    }

    /** Runs one operation and counts it; false after a failure, which stops this caller. */
    private boolean once(Caller caller) {
        try {
            caller.call();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            LockSupport.unpark(waiter);
            return false;
        }
        if (completed.incrementAndGet() == target) {
            LockSupport.unpark(waiter);
        }
        return true;
    }

    /** Blocks until the callers have completed {@code operations} more operations than when it was called. */
    public void awaitCompletions(long operations) {
        waiter = Thread.currentThread();
        long goal = completed.get() + operations;
        target = goal;
        while (completed.get() < goal) {
            Throwable t = failure.get();
            if (t != null) {
                throw new IllegalStateException("a caller failed", t);
            }
            LockSupport.parkNanos(this, 1_000_000);
        }
    }

    public long completed() {
        return completed.get();
    }

    /** Stops every caller after its current operation and waits for them; rethrows a caller's failure. */
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join();
        }
        if (pool != null) {
            pool.shutdown();
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("pool callers did not stop within a minute");
            }
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a caller failed", t);
        }
    }
}
