package io.varve.raftlog;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts data syncs independently of the engine's own counters, and can hold the first sync of a file at a
 * gate so a test can line up other writers behind it.
 */
final class CountingFileSystem extends ForwardingFileSystem {
    final AtomicLong syncs = new AtomicLong();
    final AtomicLong bytesWritten = new AtomicLong();
    volatile CountDownLatch gate;
    /** CPU work done in every sync, standing in for a device flush without sleeping. */
    volatile int syncWork;
    final CountDownLatch atGate = new CountDownLatch(1);

    CountingFileSystem(FileSystem delegate) {
        super(delegate);
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return wrap(delegate.create(path));
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return wrap(delegate.openForAppend(path));
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        return wrap(delegate.openForOverwrite(path, position));
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
}
