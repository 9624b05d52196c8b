package io.varve.core.internal;

import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory file system that controls what the commit pipeline's log worker (the thread that creates spare
 * logs and fsyncs sealed ones) and the flush can do: table creation can be held back, the worker can be held
 * at its next log creation, and its N-th operation can be failed. Everything the worker does is told apart by
 * its thread name.
 */
public final class LogWorkerFileSystem extends ForwardingFileSystem {

    /** The failure injected into the log worker, so tests can tell it from a real one. */
    static final class WorkerFault extends IOException {
        WorkerFault(long operation, String name) {
            super("injected log worker failure at its operation " + operation + " (" + name + ")");
        }
    }

    final MemFileSystem disk;
    /** Table creation waits for this while {@link #holdTables} is set. */
    final CountDownLatch tables = new CountDownLatch(1);
    volatile boolean holdTables;
    /** Set by {@link #abandonHeldTables}: held table creations fail instead of going on. */
    private volatile boolean tablesAbandoned;
    /** Counted down when the worker starts waiting at a log creation (see {@link #holdWorker}). */
    final CountDownLatch workerHeld = new CountDownLatch(1);
    /** The held worker waits for this. */
    final CountDownLatch workerReleased = new CountDownLatch(1);
    volatile boolean holdWorker;
    /** Counted down once the worker has synced the directory (its first spare log is then durable). */
    final CountDownLatch workerDirectorySynced = new CountDownLatch(1);
    /** One permit per directory sync the worker completed. */
    final java.util.concurrent.Semaphore workerDirectorySyncs = new java.util.concurrent.Semaphore(0);
    /**
     * Set after a simulated machine crash: the dead process's threads (released from a hold) must not change
     * the surviving files, so every operation through this instance fails from then on.
     */
    volatile boolean dead;
    private final AtomicLong workerOperations = new AtomicLong();
    private volatile long failWorkerAt = Long.MAX_VALUE;
    volatile boolean workerFaultInjected;

    LogWorkerFileSystem() {
        this(new MemFileSystem());
    }

    LogWorkerFileSystem(MemFileSystem disk) {
        super(disk);
        this.disk = disk;
    }

    /**
     * Releases the held table creations with a failure, so the flushes waiting in them end without a table
     * and no log becomes obsolete. Closing the database waits for a running flush rather than interrupting it.
     */
    void abandonHeldTables() {
        tablesAbandoned = true;
        tables.countDown();
    }

    /** Fails the log worker's {@code n}-th operation (create, directory sync or file sync), counting from 1. */
    void failWorkerOperation(long n) {
        failWorkerAt = n;
    }

    long workerOperations() {
        return workerOperations.get();
    }

    private static boolean onWorker() {
        return Thread.currentThread().getName().startsWith("varve-log");
    }

    private void workerOperation(String name) throws IOException {
        checkAlive();
        if (onWorker()) {
            long n = workerOperations.incrementAndGet();
            if (n == failWorkerAt) {
                workerFaultInjected = true;
                throw new WorkerFault(n, name);
            }
        }
    }

    private void checkAlive() throws IOException {
        if (dead) {
            throw new IOException("the process died in a simulated crash");
        }
    }

    private static void await(CountDownLatch latch) throws IOException {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        String name = path.getFileName().toString();
        if (holdTables && name.endsWith(DbFiles.TABLE_SUFFIX)) {
            await(tables);
            if (tablesAbandoned) {
                throw new IOException("held table creation abandoned (simulated)");
            }
        }
        if (holdWorker && onWorker() && name.endsWith(DbFiles.LOG_SUFFIX)) {
            workerHeld.countDown();
            await(workerReleased);
        }
        workerOperation("create");
        WritableFile file = delegate.create(path);
        return new ForwardingWritableFile(file) {
            @Override
            public void write(ByteBuffer source) throws IOException {
                checkAlive();
                delegate.write(source);
            }

            @Override
            public void sync() throws IOException {
                workerOperation("sync");
                delegate.sync();
            }
        };
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        workerOperation("syncDirectory");
        super.syncDirectory(dir);
        if (onWorker()) {
            workerDirectorySynced.countDown();
            workerDirectorySyncs.release();
        }
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        checkAlive();
        return super.openForAppend(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        checkAlive();
        super.rename(source, target);
    }

    @Override
    public void link(Path existing, Path link) throws IOException {
        checkAlive();
        super.link(existing, link);
    }

    @Override
    public void delete(Path path) throws IOException {
        checkAlive();
        super.delete(path);
    }
}
