package io.varve.core.internal.compaction;

import io.varve.base.fs.ForwardingWritableFile;
import io.varve.base.fs.WritableFile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;

/** A table file being written by background work: pays the rate limiter and counts bytes written. */
public final class RateLimitedFile extends ForwardingWritableFile {

    private final RateLimiter limiter;
    private final LongAdder written;

    /** @param limiter null for no limit */
    public RateLimitedFile(WritableFile file, RateLimiter limiter, LongAdder written) {
        super(file);
        this.limiter = limiter;
        this.written = written;
    }

    @Override
    public void write(ByteBuffer source) throws IOException {
        int n = source.remaining();
        if (limiter != null) {
            limiter.acquire(n);
        }
        delegate.write(source);
        written.add(n);
    }
}
