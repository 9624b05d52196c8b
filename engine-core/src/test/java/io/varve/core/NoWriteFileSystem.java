package io.varve.core;

import io.varve.base.fs.FileSystem;
import io.varve.base.fs.ForwardingFileSystem;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The view a read-only instance gets of a file system another instance writes: reads pass through, and every
 * call that would change anything (create, append, overwrite, rename, link, delete, mkdir, directory sync,
 * lock) is recorded and fails with an {@link AssertionError}, which no engine code catches as an I/O error.
 * {@link #attempts()} lists them too, in case something swallowed the error.
 */
final class NoWriteFileSystem extends ForwardingFileSystem {

    private final List<String> attempts = new CopyOnWriteArrayList<>();

    NoWriteFileSystem(FileSystem delegate) {
        super(delegate);
    }

    List<String> attempts() {
        return List.copyOf(attempts);
    }

    private AssertionError refused(String operation, Path path) {
        String what = operation + " " + path;
        attempts.add(what);
        return new AssertionError("a read-only instance tried to " + what);
    }

    @Override
    public WritableFile create(Path path) {
        throw refused("create", path);
    }

    @Override
    public WritableFile openForAppend(Path path) {
        throw refused("append to", path);
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) {
        throw refused("overwrite", path);
    }

    @Override
    public void rename(Path source, Path target) {
        throw refused("rename", source);
    }

    @Override
    public void link(Path existing, Path link) {
        throw refused("link", link);
    }

    @Override
    public void delete(Path path) {
        throw refused("delete", path);
    }

    @Override
    public void createDirectories(Path dir) {
        throw refused("create directory", dir);
    }

    @Override
    public void syncDirectory(Path dir) {
        throw refused("sync directory", dir);
    }

    @Override
    public FileLock lock(Path path) throws IOException {
        throw refused("lock", path);
    }
}
