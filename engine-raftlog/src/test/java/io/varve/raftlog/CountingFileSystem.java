package io.varve.raftlog;

import io.varve.core.fs.FileSystem;
import io.varve.core.fs.ReadableFile;
import io.varve.core.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts data syncs independently of the engine's own counters, and can hold the first sync of a file at a
 * gate so a test can line up other writers behind it.
 */
final class CountingFileSystem implements FileSystem {
    final FileSystem delegate;
    final AtomicLong syncs = new AtomicLong();
    final AtomicLong bytesWritten = new AtomicLong();
    volatile CountDownLatch gate;
    /** CPU work done in every sync, standing in for a device flush without sleeping. */
    volatile int syncWork;
    final CountDownLatch atGate = new CountDownLatch(1);

    CountingFileSystem(FileSystem delegate) {
        this.delegate = delegate;
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return wrap(delegate.create(path));
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return wrap(delegate.openForAppend(path));
    }

    private WritableFile wrap(WritableFile f) {
        return new WritableFile() {
            @Override
            public void write(ByteBuffer source) throws IOException {
                bytesWritten.addAndGet(source.remaining());
                f.write(source);
            }

            @Override
            public void sync() throws IOException {
                CountDownLatch g = gate;
                if (g != null) {
                    gate = null;
                    atGate.countDown();
                    try {
                        g.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                }
                syncs.incrementAndGet();
                busyWork(syncWork);
                f.sync();
            }

            @Override
            public long size() {
                return f.size();
            }

            @Override
            public void close() throws IOException {
                f.close();
            }
        };
    }

    private static void busyWork(int rounds) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        byte[] buf = new byte[4096];
        for (int i = 0; i < rounds; i++) {
            crc.update(buf);
        }
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        return delegate.openReadable(path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        delegate.rename(source, target);
    }

    @Override
    public void delete(Path path) throws IOException {
        delegate.delete(path);
    }

    @Override
    public boolean exists(Path path) {
        return delegate.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return delegate.size(path);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        return delegate.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        delegate.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        delegate.syncDirectory(dir);
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        return delegate.lock(path);
    }
}
