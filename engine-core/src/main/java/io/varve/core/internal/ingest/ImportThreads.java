package io.varve.core.internal.ingest;


import io.varve.core.ingest.CpuPriority;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Where an ingestion's file work runs ({@link ExternalTables#importAll}): on the caller's thread at
 * {@link CpuPriority#NORMAL}, otherwise on threads of the database's own, lowered to the priority when they
 * start (Linux lets a thread lower its priority but not raise it again, so the caller's thread cannot be
 * lent), while the caller waits.
 *
 * <p>A thread is made whenever no idle one is ready to take the work (about one per concurrent ingestion; a
 * few more when an idle-priority thread is slow to get back to waiting), and ends after a minute unused. {@link #close}
 * lets running work finish: it is file work that cleans up after itself on failure, never safe to cut
 * short (an interrupt during a file operation closes the channel under it). A caller interrupted while it
 * waits keeps waiting, and finds its interrupt flag set again on return.
 */
public final class ImportThreads implements AutoCloseable {

    /** Work that throws what the file work throws. */
    @FunctionalInterface
    public interface Work<T> {
        T run() throws IOException;
    }

    private final ExecutorService threads;

    public ImportThreads(CpuPriority priority) {
        if (priority == CpuPriority.NORMAL) {
            threads = null;
        } else {
            // A builder's factory, unlike the builder, may be called from several threads at once.
            ThreadFactory factory = Thread.ofPlatform().daemon()
                    .name("varve-ingest-" + priority.name().toLowerCase(Locale.ROOT) + "-", 0).factory();
            threads = Executors.newCachedThreadPool(task -> factory.newThread(() -> {
                priority.applyToCurrentThread();
                task.run();
            }));
        }
    }

    /** Runs {@code work} where this priority says and returns its result or throws what it threw. */
    public <T> T run(Work<T> work) throws IOException {
        if (threads == null) {
            return work.run();
        }
        Future<T> result;
        try {
            result = threads.submit((Callable<T>) work::run);
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the database is closed", e);
        }
        try {
            return uninterruptibly(result::get);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    private static IOException rethrow(Throwable cause) {
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException(cause);
    }

    /** Refuses new work and waits up to a minute for running work to end. */
    @Override
    public void close() {
        if (threads == null) {
            return;
        }
        threads.shutdown();
        if (!uninterruptibly(() -> threads.awaitTermination(1, TimeUnit.MINUTES))) {
            System.getLogger(ImportThreads.class.getName()).log(System.Logger.Level.WARNING,
                    "an ingestion's file work did not end within a minute of close");
        }
    }

    private interface Wait<T, X extends Exception> {
        T get() throws InterruptedException, X;
    }

    /** Waits through interrupts, then sets the thread's interrupt flag again if there was one. */
    private static <T, X extends Exception> T uninterruptibly(Wait<T, X> wait) throws X {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return wait.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
