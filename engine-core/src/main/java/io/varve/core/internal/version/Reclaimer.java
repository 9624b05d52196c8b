package io.varve.core.internal.version;

import io.varve.base.LeakDetector;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that frees storage: it unmaps tables, frees memtable arenas and deletes obsolete files. Work
 * is handed to it whenever the last reference to something drops, so no reader or writer thread ever pays
 * for freeing (a shared arena's close is a handshake with every thread, and deleting a file is I/O), and
 * nothing is ever freed under a lock. Tasks run in submission order.
 *
 * <h2>Waking it rarely</h2>
 * Every published version retires a view, and a reader that drops the last reference submits the freeing.
 * Waking the thread for each such task made it preempt a reader or the publisher thousands of times a second
 * on a 2-core machine. So once the queue runs dry the thread first <em>lingers</em> — a timed park
 * of {@link #DEFAULT_LINGER} during which submitters only enqueue — and runs whatever gathered; only when a
 * linger ends with nothing queued does it become {@code idle}, and only an idle thread is woken by a
 * submitter. Under continuous load that is at most one wake-up per linger; an idle database sees one timed
 * wake-up after its last task, then none. Freeing is delayed by at most one linger.
 *
 * <p>No lost wake-up: the thread sets {@code idle}, then checks the queue before parking; a submitter adds to
 * the queue, then reads {@code idle}. Both are volatile (the queue's link is a CAS), so either the thread sees
 * the task or the submitter sees {@code idle} and unparks it. {@link #drain()} and {@link #close()} wake the
 * thread unconditionally, so they never wait for a linger to end.
 *
 * <p>One wake-up per idle spell: a submitter <em>claims</em> the wake-up by turning {@code idle} from true to
 * false with a CAS, and only the one that wins unparks. Without the claim, every submission made while the
 * woken thread is still being scheduled would see {@code idle} and unpark again. The claim has one more
 * consequence: when the thread, having set {@code idle}, finds work and skips the park, a submitter may
 * still have claimed — its unpark then arrives at a thread that is running, and would cut the next linger
 * short. So the thread clears {@code idle} with a CAS too, and if that fails without having parked it parks
 * once to take the claimed permit (which the claimant is bound to deliver).
 *
 * <p>{@link #close()} runs everything already submitted, then stops the thread; tasks submitted after that
 * run on the submitting thread, so late releases (a reader finishing after the database closed) still free
 * what they hold. A submitter that enqueued while close() was draining sees {@code closed} after its add and
 * drains the queue itself: a volatile write of {@code closed} followed by close's drain, against the
 * submitter's add followed by its read of {@code closed}, means one of the two always finds the task.
 */
public final class Reclaimer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Reclaimer.class.getName());
    private static final Runnable STOP = () -> { };
    static final long DEFAULT_LINGER = TimeUnit.MILLISECONDS.toNanos(2);

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final long lingerNanos;
    private final Thread thread;
    /**
     * True while the thread is parked, or about to park, with no timeout: the submitter that turns it false
     * must wake it.
     */
    private final AtomicBoolean idle = new AtomicBoolean();
    private volatile boolean closed;
    private final LongAdder wakeUps = new LongAdder();

    public Reclaimer(String name) {
        this(name, DEFAULT_LINGER);
    }

    /** @param lingerNanos how long the thread waits for more work before it goes idle; 0 goes idle at once */
    Reclaimer(String name, long lingerNanos) {
        this.lingerNanos = lingerNanos;
        thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    public void submit(Runnable task) {
        if (closed) {
            runSafely(task);
            return;
        }
        tasks.add(task);
        if (closed) {
            // close() may have drained the queue between the check above and the add: run what is left here.
            runQueued();
            return;
        }
        if (idle.get() && idle.compareAndSet(true, false)) {
            wakeUps.increment();
            LockSupport.unpark(thread);
        }
    }

    /**
     * Runs what is queued on the calling thread, once the reclaimer thread has stopped. Both close() and a
     * submitter that saw {@code closed} only after enqueuing call it; each task is polled, so runs, once.
     */
    private void runQueued() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            if (task != STOP) {
                runSafely(task);
            }
        }
    }

    private void submitAndWake(Runnable task) {
        tasks.add(task);
        LockSupport.unpark(thread);
    }

    private void run() {
        try (LeakDetector.Handle ignored = LeakDetector.track("thread", Thread.currentThread().getName())) {
            runTasks();
        }
    }

    private void runTasks() {
        boolean ranSomething = false;
        while (true) {
            Runnable task = tasks.poll();
            if (task == STOP) {
                return;
            }
            if (task != null) {
                runSafely(task);
                ranSomething = true;
                continue;
            }
            if (ranSomething && lingerNanos > 0) {
                ranSomething = false;
                LockSupport.parkNanos(this, lingerNanos);
            } else {
                idle.set(true);
                boolean parked = tasks.isEmpty();
                if (parked) {
                    LockSupport.park(this);
                }
                if (!idle.compareAndSet(true, false) && !parked) {
                    // A submitter claimed the wake-up after this thread saw its task: take the permit it owes.
                    LockSupport.park(this);
                }
            }
            // Nobody should interrupt this thread; if someone does, parking must not turn into spinning.
            Thread.interrupted();
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
            CompletableFuture<Boolean> marker = new CompletableFuture<>();
            submitAndWake(() -> marker.complete(tasks.isEmpty()));
            try {
                emptyBehindMarker = marker.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** How often a submission had to wake the idle thread; for tests and metrics. */
    public long wakeUps() {
        return wakeUps.sum();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        submitAndWake(STOP);
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
        runQueued();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
