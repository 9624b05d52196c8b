package io.varve.core;

import io.varve.core.fs.FileSystem;
import io.varve.core.fs.ReadableFile;
import io.varve.core.fs.WritableFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Forwards everything to another file system; tests override the one operation they want to control. */
class ForwardingFileSystem implements FileSystem {

    protected final FileSystem delegate;

    ForwardingFileSystem(FileSystem delegate) {
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
