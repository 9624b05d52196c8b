package io.varve.core.internal.wal;

import io.varve.base.fs.WritableFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Appends logical records to a write-ahead log in the layout of {@link WalFormat}.
 *
 * <p>{@link #append} only encodes into an in-memory buffer; {@link #flush} hands everything buffered to the
 * file in one write call. That split is what lets the commit pipeline encode a whole group of write batches
 * and reach the OS with a single system call, then make the group durable with a single {@link #sync}.
 *
 * <p>After any {@link IOException} from the file the writer is poisoned: the file's content past the last
 * successful sync is unknown (a failed write may have landed partly, a failed fsync may have dropped dirty
 * pages, as Linux does), so writing on could put acknowledged-looking records after a hole. Every later
 * {@code append}, {@code flush}, {@code sync} and {@code close} throws an {@link IOException} whose cause is
 * the original failure; the engine must switch to a new log.
 *
 * <p>A writer may be given a file that already holds bytes (opened for append): it continues the block layout
 * from the file's current size. Not thread-safe: the commit pipeline serializes calls.
 *
 * <p>Why the buffer is native memory: a file channel writes a heap buffer by first copying it into a
 * temporary native one, so a heap buffer would cost every logged byte one more copy. Payloads are copied
 * once, straight into their record's place in this buffer, and the buffer goes to the {@code write} as it is.
 * It comes from an automatic arena (freed by the garbage collector once dropped): closing a shared arena
 * would stop every thread for a handshake, and the writer is used from whichever thread holds the log lock.
 */
public final class WalWriter implements AutoCloseable {

    /**
     * A buffer that grew past this (a huge batch) is dropped after a flush rather than kept for the writer's
     * lifetime; ordinary groups of batches stay well below it and reuse one buffer. Tuning, not format.
     */
    private static final int RETAINED_BUFFER_BYTES = 1 << 20;
    /** Largest buffer: positions in it stay ints, and a write takes it as one {@link ByteBuffer}. */
    private static final int MAX_BUFFER_BYTES = Integer.MAX_VALUE - 16;

    private final WritableFile file;
    private final long logNumber;
    private final int logNumberBits;

    private MemorySegment buffer = allocate(WalFormat.BLOCK_SIZE);
    private int buffered;
    /** Bytes in the file plus bytes buffered: the logical end of the log. */
    private long size;
    private IOException failure;
    private boolean closed;

    public WalWriter(WritableFile file, long logNumber) {
        this.file = file;
        this.logNumber = logNumber;
        this.logNumberBits = WalFormat.logNumberBits(logNumber);
        this.size = file.size();
    }

    /**
     * Encodes the remaining bytes of {@code payload} (position to limit) as one logical record. The buffer's
     * position and limit are left unchanged. Nothing reaches the file until {@link #flush}.
     */
    public void append(ByteBuffer payload) throws IOException {
        append(MemorySegment.ofBuffer(payload));
    }

    /** Encodes all of {@code payload} as one logical record. Nothing reaches the file until {@link #flush}. */
    public void append(MemorySegment payload) throws IOException {
        checkUsable();
        long encoded = WalFormat.encodedLength(size, payload.byteSize());
        if (encoded > MAX_BUFFER_BYTES - buffered) {
            // Refused before touching any state, so the writer stays usable (and unpoisoned).
            throw new IllegalArgumentException("payload of " + payload.byteSize()
                    + " bytes does not fit the write buffer; flush first or split it");
        }
        ensureCapacity(buffered + (int) encoded);
        encode(payload);
    }

    private void encode(MemorySegment payload) {
        long remaining = payload.byteSize();
        long source = 0;
        boolean first = true;
        do {
            int room = WalFormat.BLOCK_SIZE - blockOffset();
            if (room < WalFormat.HEADER_SIZE) {
                // The buffer is reused after a flush, so padding must be written, not assumed.
                buffer.asSlice(buffered, room).fill((byte) 0);
                buffered += room;
                size += room;
                room = WalFormat.BLOCK_SIZE;
            }
            int fragment = (int) Math.min(remaining, room - WalFormat.HEADER_SIZE);
            boolean last = fragment == remaining;
            int type = first
                    ? (last ? WalFormat.FULL_TYPE : WalFormat.FIRST_TYPE)
                    : (last ? WalFormat.LAST_TYPE : WalFormat.MIDDLE_TYPE);
            MemorySegment.copy(payload, source, buffer, buffered + WalFormat.HEADER_SIZE, fragment);
            WalFormat.encodeHeader(buffer, buffered, type, logNumberBits, fragment);
            int written = WalFormat.HEADER_SIZE + fragment;
            buffered += written;
            size += written;
            source += fragment;
            remaining -= fragment;
            first = false;
        } while (remaining > 0);
    }

    /** Writes everything buffered to the file with a single write call; does nothing if nothing is buffered. */
    public void flush() throws IOException {
        checkUsable();
        if (buffered == 0) {
            return;
        }
        try {
            file.write(buffer.asSlice(0, buffered).asByteBuffer());
        } catch (IOException e) {
            throw poison(e);
        }
        buffered = 0;
        if (buffer.byteSize() > RETAINED_BUFFER_BYTES) {
            buffer = allocate(WalFormat.BLOCK_SIZE);
        }
    }

    /** Flushes, then forces the file's data to the device: on return every appended record is durable. */
    public void sync() throws IOException {
        flush();
        try {
            file.sync();
        } catch (IOException e) {
            throw poison(e);
        }
    }

    /** Bytes logically written: the file's size when the writer was opened plus every byte encoded since. */
    public long size() {
        return size;
    }

    public long logNumber() {
        return logNumber;
    }

    /**
     * Flushes (without syncing: durability is the caller's decision) and closes the file. The file is closed
     * even if the writer is poisoned or the flush fails, and the failure is then thrown. Closing a healthy
     * writer twice is harmless; closing a poisoned one always throws.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            if (failure != null) {
                checkUsable();
            }
            return;
        }
        IOException error = null;
        try {
            flush();
        } catch (IOException e) {
            error = e;
        }
        closed = true;
        try {
            file.close();
        } catch (IOException e) {
            if (error == null) {
                error = poison(e);
            } else {
                error.addSuppressed(e);
            }
        }
        if (error != null) {
            throw error;
        }
    }

    private int blockOffset() {
        return (int) (size % WalFormat.BLOCK_SIZE);
    }

    private void ensureCapacity(int needed) {
        if (needed > buffer.byteSize()) {
            long grown = Math.min(MAX_BUFFER_BYTES, Math.max(needed, 2L * buffer.byteSize()));
            MemorySegment larger = allocate(grown);
            MemorySegment.copy(buffer, 0, larger, 0, buffered);
            buffer = larger;
        }
    }

    private static MemorySegment allocate(long bytes) {
        return Arena.ofAuto().allocate(bytes, Long.BYTES);
    }

    private IOException poison(IOException cause) {
        failure = cause;
        return cause;
    }

    private void checkUsable() throws IOException {
        if (failure != null) {
            throw new IOException("WAL writer for log " + logNumber + " failed earlier; no further writes are"
                    + " allowed", failure);
        }
        if (closed) {
            throw new IOException("WAL writer for log " + logNumber + " is closed");
        }
    }
}
