package io.varve.core.internal.sst;

import io.varve.base.LeakDetector;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Encodes a table's data blocks on a second thread: the writer's thread builds block contents and hands them
 * over here; this pipeline's own thread compresses, checksums and writes them through a {@link BlockEncoder}.
 * A flush spends about half its time in LZ4 and the other half walking the memtable and building blocks, so
 * with a core to spare the two halves overlap.
 *
 * <h2>Threads and ownership</h2>
 * Two threads only: the <em>producer</em> (the writer's caller, the only one that calls this class) and the
 * <em>encoder</em> thread, started by the constructor and ended by {@link #finish()} or {@link #close()}, which
 * both join it. Until the join the encoder thread alone touches the {@link BlockEncoder} (and through it the
 * file); after it the producer does, and the join orders everything the encoder thread wrote before it. The
 * thread is registered with the {@link LeakDetector} under the owner the caller names, so a pipeline that is
 * never closed shows up as a leaked thread.
 *
 * <h2>Batches and back-pressure</h2>
 * Blocks travel in batches of about {@value #BATCH_BYTES} bytes (one hand-over per 32 blocks of 4 KiB, so
 * the queue costs nothing next to the compression). There are exactly {@value #BATCHES} batches: the producer
 * takes an empty one from {@code empty}, fills it and puts it in {@code full}; the encoder thread takes it
 * from {@code full}, encodes it and gives it back to {@code empty}. So at most {@value #BATCHES} batches of
 * uncompressed blocks are in flight and a producer that runs ahead waits for an empty batch. {@code full}
 * has room for every batch plus the end marker, so putting the marker never waits.
 *
 * <h2>Failure</h2>
 * When encoding or writing fails (an I/O error, a block over the format limit), the encoder thread records
 * the first failure and keeps returning batches unencoded until the end marker, so a producer never waits
 * for an empty batch that will not come. The producer sees the failure at its next hand-over or at
 * {@link #finish()}, where the failure is thrown as it was raised (the same exception object). A producer
 * that fails on its own side closes the pipeline, which sends the end marker and joins the thread; nothing
 * the encoder thread does after that reaches the file, because it only ever touches the file while encoding
 * a batch the producer handed over.
 */
final class BlockPipeline implements AutoCloseable {

    static final int BATCH_BYTES = 128 * 1024;
    static final int BATCHES = 4;

    /** A run of finished block contents, back to back, with each block's length. */
    private static final class Batch {
        byte[] bytes = new byte[BATCH_BYTES];
        int size;
        int[] lengths = new int[64];
        int count;

        void add(byte[] contents, int length) {
            if (size + length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(size + length, bytes.length * 2));
            }
            System.arraycopy(contents, 0, bytes, size, length);
            size += length;
            if (count == lengths.length) {
                lengths = Arrays.copyOf(lengths, count * 2);
            }
            lengths[count++] = length;
        }

        void clear() {
            size = 0;
            count = 0;
        }
    }

    /** Put in {@code full} once, after the last batch: the encoder thread ends when it takes it. */
    private static final Batch END = new Batch();

    private final BlockEncoder encoder;
    private final BlockingQueue<Batch> empty = new ArrayBlockingQueue<>(BATCHES);
    private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES + 1);
    private final Thread thread;
    /** The encoder thread's first failure; read by the producer at each hand-over. */
    private volatile Throwable failure;
    /** Producer side: the batch being filled, null between hand-overs. */
    private Batch current;
    private boolean ended;

    /**
     * Starts the encoder thread.
     *
     * @param owner who must close this pipeline, for the leak detector and the thread's name (a directory)
     */
    BlockPipeline(BlockEncoder encoder, String owner) {
        this.encoder = encoder;
        for (int i = 0; i < BATCHES; i++) {
            empty.add(new Batch());
        }
        this.thread = Thread.ofPlatform().daemon().name("varve-table-encoder " + owner).unstarted(() -> {
            try (LeakDetector.Handle ignored = LeakDetector.track("thread", owner)) {
                encodeUntilEnd();
            }
        });
        thread.start();
    }

    /**
     * Hands over a finished block (copied, so {@code contents} may be reused at once). May wait for the encoder
     * thread to catch up.
     *
     * @throws IOException or the unchecked exception the encoder thread failed with, once it has failed
     */
    void add(byte[] contents, int length) throws IOException {
        if (ended) {
            throw new IllegalStateException("block pipeline already ended");
        }
        if (current == null) {
            rethrowFailure();
            current = takeEmpty();
        }
        current.add(contents, length);
        if (current.size >= BATCH_BYTES) {
            handOver();
        }
    }

    /**
     * Hands over the last batch, waits until every block is written to the encoder's pending writes, and ends
     * the thread. Afterwards the encoder is the caller's.
     *
     * @throws IOException or the unchecked exception the encoder thread failed with
     */
    void finish() throws IOException {
        if (ended) {
            throw new IllegalStateException("block pipeline already ended");
        }
        if (current != null && current.count > 0) {
            handOver();
        }
        end();
        rethrowFailure();
    }

    /** Ends the thread without waiting for it to encode what was handed over; nothing is thrown. */
    @Override
    public void close() {
        if (!ended) {
            end();
        }
    }

    private void handOver() {
        full.add(current); // never full: there is room for every batch and the end marker
        current = null;
    }

    private Batch takeEmpty() throws IOException {
        try {
            return empty.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the table encoder");
        }
    }

    private void end() {
        ended = true;
        full.add(END);
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the thread must be gone before the caller closes the file
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void rethrowFailure() throws IOException {
        Throwable f = failure;
        if (f == null) {
            return;
        }
        switch (f) {
            case IOException io -> throw io;
            case RuntimeException runtime -> throw runtime;
            case Error error -> throw error;
            default -> throw new UncheckedIOException(new IOException(f));
        }
    }

    /** The encoder thread's loop. */
    private void encodeUntilEnd() {
        while (true) {
            Batch batch;
            try {
                batch = full.take();
            } catch (InterruptedException e) {
                // Only a JVM tearing threads down interrupts this one; the producer then sees a failure.
                if (failure == null) {
                    failure = new InterruptedIOException("table encoder interrupted");
                }
                continue;
            }
            if (batch == END) {
                return;
            }
            if (failure == null) {
                try {
                    int start = 0;
                    for (int i = 0; i < batch.count; i++) {
                        encoder.writeDataBlock(batch.bytes, start, batch.lengths[i]);
                        start += batch.lengths[i];
                    }
                } catch (Throwable t) {
                    failure = t;
                }
            }
            batch.clear();
            empty.add(batch);
        }
    }
}
