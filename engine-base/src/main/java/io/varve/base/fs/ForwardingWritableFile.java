package io.varve.base.fs;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link WritableFile} that passes every call to another one; wrappers (fault injection, rate limiting,
 * test hooks) extend it and override only the calls they intercept.
 */
public class ForwardingWritableFile implements WritableFile {

    protected final WritableFile delegate;

    public ForwardingWritableFile(WritableFile delegate) {
        this.delegate = delegate;
    }

    @Override
    public void write(ByteBuffer source) throws IOException {
        delegate.write(source);
    }

    @Override
    public void sync() throws IOException {
        delegate.sync();
    }

    @Override
    public long size() {
        return delegate.size();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
