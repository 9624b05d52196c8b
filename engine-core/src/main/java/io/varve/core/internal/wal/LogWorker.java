package io.varve.core.internal.wal;

import io.varve.base.LeakDetector;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The write-ahead log's one background thread, which runs sealed logs' final fsyncs and spare log creation in
 * submission order. Owns the thread's lifecycle: close waits for the task in progress (a file creation or an
 * fsync, both short) and joins the thread, so no thread of a log outlives its close; the leak detector knows
 * the thread by the database directory until then.
 */
final class LogWorker {

    private final Path dir;
    private final ExecutorService executor;
    /** The threads the executor made (one, unless a task killed it): close joins them. */
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final LeakDetector.Handle handle;

    LogWorker(Path dir) {
        this.dir = dir;
        String name = "varve-log " + dir.getFileName();
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = Thread.ofPlatform().daemon().name(name).unstarted(r);
            threads.add(thread);
            return thread;
        });
        this.handle = LeakDetector.track("thread", name + " (" + dir + ")");
    }

    void execute(Runnable task) {
        executor.execute(task);
    }

    /** Waits until everything queued so far has run (nothing if the worker has stopped). */
    void awaitQueued() throws InterruptedException {
        try {
            executor.submit(() -> { }).get();
        } catch (RejectedExecutionException | ExecutionException stopped) {
            // closed: nothing more will run
        }
    }

    /** Stops taking tasks without waiting; for a log that failed to start. */
    void abandon() {
        executor.shutdown();
        handle.close();
    }

    /**
     * Stops taking tasks and waits up to a minute for the queued ones and the thread to end. An interrupt does
     * not cut the wait short (the tasks are short file operations); it is restored afterwards.
     *
     * @throws IOException if the worker did not finish in time
     */
    void close() throws IOException {
        executor.shutdown();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        boolean interrupted = false;
        boolean finished;
        while (true) {
            try {
                // awaitTermination can return while the thread is still finishing: join it too.
                finished = executor.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)
                        && joinThreads(deadline);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!finished) {
            throw new IOException("the log worker of " + dir + " did not finish within a minute");
        }
        handle.close();
    }

    private boolean joinThreads(long deadline) throws InterruptedException {
        for (Thread thread : threads) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !thread.join(Duration.ofNanos(remaining))) {
                return !thread.isAlive();
            }
        }
        return true;
    }
}
