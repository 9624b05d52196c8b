package io.varve.core.version;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * The one thread that frees storage: it unmaps tables, frees memtable arenas and deletes obsolete files. Work
 * is handed to it whenever the last reference to something drops, so no reader or writer thread ever pays
 * for freeing (a shared arena's close is a handshake with every thread, and deleting a file is I/O), and
 * nothing is ever freed under a lock. Tasks run in submission order.
 *
 * <p>{@link #close()} runs everything already submitted, then stops the thread; tasks submitted after that
 * run on the submitting thread, so late releases (a reader finishing after the database closed) still free
 * what they hold.
 */
public final class Reclaimer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Reclaimer.class.getName());
    private static final Runnable STOP = () -> { };

    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    public Reclaimer(String name) {
        thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    public void submit(Runnable task) {
        if (closed) {
            runSafely(task);
            return;
        }
        tasks.add(task);
    }

    private void run() {
        while (true) {
            Runnable task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (task == STOP) {
                return;
            }
            runSafely(task);
        }
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            // Freeing must never kill the reclaimer: the rest of the queue still has to be freed.
            LOG.log(System.Logger.Level.ERROR, "reclaiming failed", e);
        }
    }

    /**
     * Waits until every task submitted before this call has run, and every task those tasks submitted in
     * turn (releasing a view releases its version, which queues the deletion of obsolete tables).
     */
    public void drain() {
        if (closed || Thread.currentThread() == thread) {
            return;
        }
        boolean emptyBehindMarker = false;
        while (!emptyBehindMarker) {
            java.util.concurrent.CompletableFuture<Boolean> marker = new java.util.concurrent.CompletableFuture<>();
            tasks.add(() -> marker.complete(tasks.isEmpty()));
            try {
                emptyBehindMarker = marker.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        tasks.add(STOP);
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        closed = true;
        // Anything submitted between STOP and closed=true is still queued: run it here.
        Runnable task;
        while ((task = tasks.poll()) != null) {
            if (task != STOP) {
                runSafely(task);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
