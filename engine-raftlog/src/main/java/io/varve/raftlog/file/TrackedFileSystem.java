package io.varve.raftlog.file;

import io.varve.base.LeakDetector;
import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The raft log's view of its file system: every file and lock it opens is registered with the
 * {@link LeakDetector} as owned by the file's path until closed, whichever {@link FileSystem} the options name
 * (the in-memory one tracks nothing by itself). Without leak detection the engine uses the file system as is.
 */
public final class TrackedFileSystem extends ForwardingFileSystem {

    private TrackedFileSystem(FileSystem delegate) {
        super(delegate);
    }

    /** {@code fs} itself unless leak detection is on. */
    public static FileSystem of(FileSystem fs) {
        return LeakDetector.enabled() ? new TrackedFileSystem(fs) : fs;
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return tracked(delegate.create(path), path);
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return tracked(delegate.openForAppend(path), path);
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        return tracked(delegate.openForOverwrite(path, position), path);
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        ReadableFile file = delegate.openReadable(path);
        LeakDetector.Handle leak = LeakDetector.track("file", path);
        return new ReadableFile() {
            @Override
            public long size() throws IOException {
                return file.size();
            }

            @Override
            public int read(ByteBuffer destination, long position) throws IOException {
                return file.read(destination, position);
            }

            @Override
            public MemorySegment map(Arena arena) throws IOException {
                return file.map(arena);
            }

            @Override
            public void close() throws IOException {
                leak.close();
                file.close();
            }
        };
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        FileLock lock = delegate.lock(path);
        LeakDetector.Handle leak = LeakDetector.track("file", path);
        return () -> {
            leak.close();
            lock.close();
        };
    }

    private static WritableFile tracked(WritableFile file, Path path) {
        LeakDetector.Handle leak = LeakDetector.track("file", path);
        return new ForwardingWritableFile(file) {
            @Override
            public void close() throws IOException {
                leak.close();
                delegate.close();
            }
        };
    }
}
