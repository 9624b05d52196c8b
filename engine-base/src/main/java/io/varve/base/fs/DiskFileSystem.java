package io.varve.base.fs;

import io.varve.base.LeakDetector;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/** The real file system, through {@link FileChannel}. */
public final class DiskFileSystem implements FileSystem {

    /** The shared instance; the class holds no per-instance state besides the JVM-wide lock registry. */
    public static final DiskFileSystem INSTANCE = new DiskFileSystem();

    /**
     * OS file locks are per process, so a second open in the same JVM would not be refused by the OS (Java
     * throws {@link OverlappingFileLockException} only for the same channel's JVM view). This set makes the
     * in-process case explicit and gives it the same error.
     */
    private static final Set<Path> HELD_LOCKS = ConcurrentHashMap.newKeySet();

    private DiskFileSystem() {
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        return new DiskWritableFile(channel, 0, path);
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
        long size = channel.size();
        channel.position(size);
        return new DiskWritableFile(channel, size, path);
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        // WRITE without TRUNCATE_EXISTING or APPEND: the channel writes at its position over the old bytes.
        FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE);
        try {
            long size = channel.size();
            if (position < 0 || position > size) {
                throw new IllegalArgumentException("position " + position + " outside [0, " + size + "] of " + path);
            }
            channel.position(position);
            return new DiskWritableFile(channel, position, path);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public ReadableFile openReadable(Path path) throws IOException {
        return new DiskReadableFile(FileChannel.open(path, StandardOpenOption.READ), path);
    }

    @Override
    public void rename(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("file system cannot rename atomically: " + source + " -> " + target, e);
        }
    }

    @Override
    public void link(Path existing, Path link) throws IOException {
        try {
            Files.createLink(link, existing);
        } catch (java.nio.file.FileSystemException e) {
            // EXDEV (another device) and EPERM (a file system without links) mean "cannot link here": the
            // caller copies instead. A missing source or an existing target is the caller's error.
            if (e instanceof NoSuchFileException || e instanceof java.nio.file.FileAlreadyExistsException) {
                throw e;
            }
            throw new UnsupportedOperationException("cannot hard-link " + existing + " as " + link + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public long size(Path path) throws IOException {
        return Files.size(path);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.forEach(p -> names.add(p.getFileName().toString()));
        } catch (NoSuchFileException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        // Linux allows fsync on a directory opened read-only; that is what makes new names durable.
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        Path key = path.toAbsolutePath().normalize();
        if (!HELD_LOCKS.add(key)) {
            throw new IOException("lock " + path + " is already held by another open instance in this JVM");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            java.nio.channels.FileLock osLock = channel.tryLock();
            if (osLock == null) {
                throw new IOException("lock " + path + " is held by another process");
            }
            FileChannel owned = channel;
            return () -> {
                try {
                    osLock.release();
                    owned.close();
                } finally {
                    HELD_LOCKS.remove(key);
                }
            };
        } catch (IOException | RuntimeException e) {
            HELD_LOCKS.remove(key);
            if (channel != null) {
                channel.close();
            }
            if (e instanceof OverlappingFileLockException) {
                throw new IOException("lock " + path + " is already held in this JVM", e);
            }
            throw e;
        }
    }

    private static final class DiskWritableFile implements WritableFile {
        private final FileChannel channel;
        private final LeakDetector.Handle leak;
        private long size;

        /** {@code position}: where the channel is positioned, which is where the next write lands. */
        DiskWritableFile(FileChannel channel, long position, Path path) {
            this.channel = channel;
            this.size = position;
            this.leak = LeakDetector.track("file", path);
        }

        @Override
        public void write(ByteBuffer source) throws IOException {
            while (source.hasRemaining()) {
                size += channel.write(source);
            }
        }

        @Override
        public void sync() throws IOException {
            channel.force(false);
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public void close() throws IOException {
            try {
                channel.close();
            } finally {
                leak.close();
            }
        }
    }

    private static final class DiskReadableFile implements ReadableFile {
        private final FileChannel channel;
        private final LeakDetector.Handle leak;

        DiskReadableFile(FileChannel channel, Path path) {
            this.channel = channel;
            this.leak = LeakDetector.track("file", path);
        }

        @Override
        public long size() throws IOException {
            return channel.size();
        }

        @Override
        public int read(ByteBuffer destination, long position) throws IOException {
            return channel.read(destination, position);
        }

        @Override
        public MemorySegment map(Arena arena) throws IOException {
            long size = channel.size();
            if (size == 0) {
                return MemorySegment.ofArray(new byte[0]);
            }
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }

        @Override
        public void close() throws IOException {
            try {
                channel.close();
            } finally {
                leak.close();
            }
        }
    }
}
