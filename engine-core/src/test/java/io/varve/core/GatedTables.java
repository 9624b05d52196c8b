package io.varve.core;

import io.varve.core.internal.DbFiles;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * An in-memory file system whose table creation (a flush or compaction output) waits for {@link #gate},
 * then succeeds or, if {@link #fail} is set, fails: lets tests hold flushes back deterministically.
 */
final class GatedTables extends ForwardingFileSystem {

    final CountDownLatch gate = new CountDownLatch(1);
    /** Counted down when a table creation reaches the gate. */
    final CountDownLatch arrived = new CountDownLatch(1);
    volatile boolean fail;
    /** Set when a thread waiting at the gate was interrupted: on a real disk that would have hit its I/O. */
    volatile boolean interrupted;

    GatedTables() {
        super(new MemFileSystem());
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        if (path.toString().endsWith(DbFiles.TABLE_SUFFIX)) {
            arrived.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                interrupted = true;
                throw new IOException(e);
            }
            if (fail) {
                throw new IOException("disk full (simulated)");
            }
        }
        return delegate.create(path);
    }
}
