package io.varve.stress.raftlog;

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
 * Registers every file handle and lock opened through it with the {@link LeakDetector} (owner: the file's
 * path) until it is closed. The raft log tracks no resource of its own, and on a {@link
 * io.varve.base.fs.MemFileSystem} an unclosed handle costs nothing visible; through this wrapper a handle a
 * failed open, write or close forgot is named with the stack that opened it. An open that throws registers
 * nothing.
 */
final class HandleTrackingFileSystem extends ForwardingFileSystem {

    HandleTrackingFileSystem(FileSystem delegate) {
        super(delegate);
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return new TrackedWritable(delegate.create(path), path);
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return new TrackedWritable(delegate.openForAppend(path), path);
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        return new TrackedWritable(delegate.openForOverwrite(path, position), path);
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        return new TrackedReadable(delegate.openReadable(path), path);
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        FileLock lock = delegate.lock(path);
        LeakDetector.Handle handle = LeakDetector.track("lock", path);
        return () -> {
            handle.close();
            lock.close();
        };
    }

    private static final class TrackedWritable extends ForwardingWritableFile {
        private final LeakDetector.Handle handle;

        TrackedWritable(WritableFile file, Path path) {
            super(file);
            this.handle = LeakDetector.track("writable file", path);
        }

        @Override
        public void close() throws IOException {
            handle.close();
            delegate.close();
        }
    }

    private static final class TrackedReadable implements ReadableFile {
        private final ReadableFile file;
        private final LeakDetector.Handle handle;

        TrackedReadable(ReadableFile file, Path path) {
            this.file = file;
            this.handle = LeakDetector.track("readable file", path);
        }

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
            handle.close();
            file.close();
        }
    }
}
