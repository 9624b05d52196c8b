package io.varve.base.fs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Forwards every operation to another file system. Extend it to observe or alter one operation (count
 * syncs, hold a write at a gate, encrypt) without restating the others.
 */
public class ForwardingFileSystem implements FileSystem {

    protected final FileSystem delegate;

    public ForwardingFileSystem(FileSystem delegate) {
        this.delegate = delegate;
    }

    @Override
    public WritableFile create(Path path) throws IOException {
        return delegate.create(path);
    }

    @Override
    public WritableFile openForAppend(Path path) throws IOException {
        return delegate.openForAppend(path);
    }

    @Override
    public WritableFile openForOverwrite(Path path, long position) throws IOException {
        return delegate.openForOverwrite(path, position);
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
    public void link(Path existing, Path link) throws IOException {
        delegate.link(existing, link);
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
