package io.varve.base.fs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The only way the engines touch storage. Everything above this interface is written against it so that
 * tests can swap the real disk for {@link MemFileSystem} (which can simulate a machine crash) or wrap any
 * file system in {@link FaultInjectingFileSystem} (which fails the N-th operation).
 *
 * <p>Durability contract, mirroring POSIX: bytes written to a {@link WritableFile} survive a process crash
 * once {@code write} returns, and survive a machine crash only after {@link WritableFile#sync()}. A newly
 * created, renamed or deleted name survives a machine crash only after {@link #syncDirectory(Path)} on its
 * parent directory.
 */
public interface FileSystem {

    /** Creates {@code path} (truncating any existing file) and opens it for appending. */
    WritableFile create(Path path) throws IOException;

    /** Opens an existing file for appending at its current end. */
    WritableFile openForAppend(Path path) throws IOException;

    /**
     * Opens an existing file for writing from {@code position} (at most its size) without truncating it: the
     * bytes past what the handle writes keep their content, and the file grows only when a write goes past
     * its end. This is how a log reuses ("recycles") an old file: overwriting blocks that are already
     * allocated and written does not change the file's size or block map, so an fdatasync after such a write
     * has no metadata to commit, where one after an append must journal the new size and blocks.
     * {@link WritableFile#size()} of the handle is the position of its next write, not the file's length.
     *
     * <p>Crash rules: bytes overwritten and synced keep their new content. Bytes overwritten and not synced
     * may come back, range by range, with their old content or with the new one (a device persists pages
     * independently and in any order). The file's size after a crash is never below its size at its last
     * sync; bytes past that size follow the rules of appended bytes (a prefix of them may survive).
     */
    WritableFile openForOverwrite(Path path, long position) throws IOException;

    /** Opens an existing file for positional reads and mapping. */
    ReadableFile openReadable(Path path) throws IOException;

    /** Renames atomically, replacing {@code target} if it exists. */
    void rename(Path source, Path target) throws IOException;

    /**
     * Gives the file at {@code existing} a second name {@code link} (a hard link: both names share the same
     * bytes). Like a creation, the new name survives a machine crash only after {@link #syncDirectory(Path)}
     * on its parent. Fails if {@code link} exists.
     *
     * @throws UnsupportedOperationException if this file system has no hard links (or not between these
     *         two places); callers fall back to copying
     */
    void link(Path existing, Path link) throws IOException;

    /** Deletes {@code path}; a missing file is not an error. */
    void delete(Path path) throws IOException;

    boolean exists(Path path);

    /** The size in bytes of an existing file. */
    long size(Path path) throws IOException;

    /** The names (not paths) of the entries of {@code dir}, sorted. */
    List<String> list(Path dir) throws IOException;

    void createDirectories(Path dir) throws IOException;

    /** Makes the directory's entries (creations, renames, deletions) durable. */
    void syncDirectory(Path dir) throws IOException;

    /**
     * Takes an exclusive lock on {@code path}, creating the file if needed. Fails with {@link IOException}
     * if another process or another open instance in this JVM holds it.
     */
    FileLock lock(Path path) throws IOException;

    /** A held lock; closing releases it. */
    interface FileLock extends AutoCloseable {
        @Override
        void close() throws IOException;
    }
}
