package io.varve.core.internal;

import io.varve.base.LeakDetector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the database's background threads (flush, compaction): daemon platform threads named after their job
 * and the directory, each registered with the {@link LeakDetector} as owned by the directory until its last
 * instruction. An executor's {@code awaitTermination} can return while a worker is still finishing, so
 * {@link #awaitEnded} joins the threads themselves: after it, none is left. A thread stays listed until it
 * has terminated (not merely left its task), and terminated ones are dropped as new ones are made, so the
 * list holds the live threads and a few finished ones, however often an executor replaces its workers.
 */
public final class OwnedThreads implements ThreadFactory {

    private final String prefix;
    private final Path dir;
    private final AtomicInteger created = new AtomicInteger();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    /** @param prefix the start of each thread's name, e.g. {@code "varve-flush-"} */
    OwnedThreads(String prefix, Path dir) {
        this.prefix = prefix;
        this.dir = dir;
    }

    @Override
    public Thread newThread(Runnable task) {
        String owner = dir.toString();
        Thread thread = Thread.ofPlatform().daemon()
                .name(prefix + created.incrementAndGet() + " " + dir.getFileName())
                .unstarted(() -> {
                    try (LeakDetector.Handle ignored = LeakDetector.track("thread", owner)) {
                        task.run();
                    }
                });
        threads.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        threads.add(thread);
        return thread;
    }

    /**
     * Waits until every thread made so far has ended (call after the executor shut down), at most until
     * {@code deadlineNanos} on the {@link System#nanoTime()} clock.
     *
     * @return whether all ended
     */
    boolean awaitEnded(long deadlineNanos) throws InterruptedException {
        for (Thread thread : threads) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0 || !thread.join(Duration.ofNanos(remaining))) {
                return !thread.isAlive();
            }
        }
        return true;
    }
}
