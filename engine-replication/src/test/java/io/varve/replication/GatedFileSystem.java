package io.varve.replication;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/** Counts data syncs, and once armed holds the next one at a gate so a test can queue writers behind it. */
final class GatedFileSystem extends ForwardingFileSystem {
    final AtomicLong syncs = new AtomicLong();
    final CountDownLatch atGate = new CountDownLatch(1);
    private volatile CountDownLatch gate;

    GatedFileSystem(FileSystem delegate) {
        super(delegate);
    }

    /** The next sync waits until {@code release} opens. */
    void arm(CountDownLatch release) {
        gate = release;
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

    private WritableFile wrap(WritableFile file) {
        return new ForwardingWritableFile(file) {
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
                super.sync();
            }
        };
    }
}
