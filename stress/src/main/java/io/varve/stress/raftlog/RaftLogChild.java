package io.varve.stress.raftlog;

import io.varve.raftlog.RaftLogEngine;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The raft-log workload. A writer thread writes batches to many groups and reports every batch before it is
 * written ({@code W <n> <synced> <ops>}) and after the write returned ({@code A <n>}). Batches append (often
 * overwriting a few entries of the tail, as a new Raft leader does), compact, put and delete state; about a
 * third are synced. Every 150 batches the writer asks for a purge (which rewrites and recycles files), which
 * a purger thread runs racing the writes; a request while a purge runs is dropped.
 *
 * <p>As the raft-log kill campaign's child ({@link #main}; arguments: directory, seed, cycle, which makes
 * versions unique across cycles) the lines go to stdout, flushed line by line, and it runs until it is killed;
 * an exception on any thread is reported on stdout ({@code E <exception>}, where the parent reads) and ends
 * the child with its stack trace on stderr.
 *
 * <p>The I/O error campaign runs it in-process ({@link #inProcess}): lines go to a consumer, an exception
 * goes to a handler and ends the thread that met it, the writer stops after a number of batches, every loop
 * ends at {@link #stop()}, and a reader thread reads a short range of entries or a state key after every
 * fourth batch, checking every byte against the versions written there.
 */
public final class RaftLogChild {
    /** The reader thread's name: its failures, unlike the writer's and the purger's, leave the log writable. */
    static final String READER = "workload-reader";
    private static final int PURGE_EVERY = 150;
    private static final int READ_EVERY = 4;

    private final RaftLogEngine engine;
    private final long cycle;
    private final Consumer<String> out;
    private final Consumer<Throwable> onThrow;
    private final long maxBatches;
    private final boolean reads;
    /** One permit per purge asked for; only asked for while {@link #purgeIdle}. */
    private final Semaphore purgeRequests = new Semaphore(0);
    private final AtomicBoolean purgeIdle = new AtomicBoolean(true);
    private final Semaphore readRequests = new Semaphore(0);
    /** Counted down when the writer's loop ends or any thread throws. */
    private final CountDownLatch ended = new CountDownLatch(1);
    /** The next batch's number; the writer's, and after it ended its caller's ({@link #writeOneMore}). */
    private long next;
    private Random writerRandom;
    private volatile boolean stopped;

    private RaftLogChild(RaftLogEngine engine, long cycle, Consumer<String> out, Consumer<Throwable> onThrow,
            long maxBatches, boolean reads) {
        this.engine = engine;
        this.cycle = cycle;
        this.out = out;
        this.onThrow = onThrow;
        this.maxBatches = maxBatches;
        this.reads = reads;
    }

    /**
     * The workload for the I/O error campaign: at most {@code maxBatches} batches, with the reader.
     *
     * @param cycle at least 1; versions are {@code cycle << 32 | n}, so they differ from every other cycle's
     */
    static RaftLogChild inProcess(RaftLogEngine engine, long cycle, Consumer<String> out,
            Consumer<Throwable> onThrow, long maxBatches) {
        return new RaftLogChild(engine, cycle, out, onThrow, maxBatches, true);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        long cycle = Long.parseLong(args[2]);
        PrintStream stdout = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        try (RaftLogEngine engine = RaftLogEngine.open(dir, RaftLogStressOptions.options())) {
            stdout.println("READY");
            stdout.flush();
            RaftLogChild workload = new RaftLogChild(engine, cycle, line -> {
                stdout.println(line);
                stdout.flush();
            }, failure::complete, Long.MAX_VALUE, false);
            workload.start(seed);
            Throwable t = failure.get(); // the child runs until it is killed unless a thread fails
            // The parent reads stdout, not stderr: the failure must reach it there, before the exit.
            stdout.println("E " + t.toString().replace('\n', ' '));
            stdout.flush();
            workload.stop();
            if (t instanceof Exception e) {
                throw e;
            }
            throw (Error) t;
        }
    }

    /** Starts the writer, the purger and (in-process) the reader: daemon threads, the writer first. */
    List<Thread> start(long seed) {
        writerRandom = new Random(seed);
        List<Thread> threads = new ArrayList<>();
        threads.add(Thread.ofPlatform().daemon().name("workload-writer").start(() -> guard(this::write, true)));
        threads.add(Thread.ofPlatform().daemon().name("workload-purger").start(() -> guard(this::purge, false)));
        if (reads) {
            Random readerRandom = new Random(seed * 31 + 1);
            threads.add(Thread.ofPlatform().daemon().name(READER)
                    .start(() -> guard(() -> read(readerRandom), false)));
        }
        return threads;
    }

    /** Makes every loop end after its current operation. */
    void stop() {
        stopped = true;
        purgeRequests.release();
        readRequests.release();
    }

    /** Waits until the writer wrote its batches or a thread threw, at most {@code limit}; whether it did. */
    boolean awaitEnd(Duration limit) throws InterruptedException {
        return ended.await(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Writes one more batch, reported like the writer's, on the caller's thread: only after the writer thread
     * ended.
     */
    void writeOneMore(boolean sync) throws IOException {
        long n = next++;
        writeOne(n, nextBatch(engine, writerRandom, (cycle << 32) | n), sync);
    }

    private interface Loop {
        void run() throws Exception;
    }

    private void guard(Loop loop, boolean writer) {
        try {
            loop.run();
        } catch (Throwable t) {
            onThrow.accept(t);
            ended.countDown();
        } finally {
            if (writer) {
                ended.countDown();
            }
        }
    }

    private void write() throws IOException {
        while (!stopped && next < maxBatches) {
            long n = next++;
            List<LogOp> batch = nextBatch(engine, writerRandom, (cycle << 32) | n);
            writeOne(n, batch, writerRandom.nextInt(3) == 0);
            if (next % PURGE_EVERY == 0 && purgeIdle.compareAndSet(true, false)) {
                purgeRequests.release();
            }
            if (reads && next % READ_EVERY == 0) {
                readRequests.release();
            }
        }
    }

    private void writeOne(long n, List<LogOp> batch, boolean sync) throws IOException {
        out.accept("W " + n + " " + (sync ? 1 : 0) + " " + LogOp.encodeBatch(batch));
        engine.write(LogOp.toBatch(batch), sync);
        out.accept("A " + n);
    }

    private void purge() throws Exception {
        while (true) {
            purgeRequests.acquire();
            if (stopped) {
                return;
            }
            engine.purgeExpiredFiles();
            purgeIdle.set(true);
        }
    }

    /**
     * Reads a random range of up to 16 entries of a group, or one of its state keys. A range may race an
     * overwrite or compaction of the group and be refused ({@link IndexOutOfBoundsException}, the engine's
     * answer for indexes it no longer has); what is returned must be exactly entries written at those indexes.
     */
    private void read(Random random) throws Exception {
        while (true) {
            readRequests.acquire();
            if (stopped) {
                return;
            }
            long group = random.nextInt(RaftLogStressOptions.GROUPS);
            if (random.nextInt(4) == 0) {
                String key = LogOp.KEYS.get(random.nextInt(LogOp.KEYS.size()));
                byte[] value = engine.get(group, LogOp.key(key));
                if (value != null && LogOp.valueVersion(group, key, value) < 0) {
                    throw new LogModel.WrongDataException("group " + group + " key " + key
                            + ": bytes are no value ever written there");
                }
                continue;
            }
            OptionalLong first = engine.firstIndex(group);
            OptionalLong last = engine.lastIndex(group);
            if (first.isEmpty() || last.isEmpty()) {
                continue;
            }
            long from = first.getAsLong() + random.nextLong(last.getAsLong() - first.getAsLong() + 1);
            long to = Math.min(last.getAsLong() + 1, from + 1 + random.nextInt(16));
            List<byte[]> entries;
            try {
                entries = engine.entries(group, from, to, random.nextBoolean() ? Long.MAX_VALUE : 2048);
            } catch (IndexOutOfBoundsException overwrittenOrCompactedMeanwhile) {
                continue;
            }
            for (int i = 0; i < entries.size(); i++) {
                if (LogOp.entryVersion(group, from + i, entries.get(i)) < 0) {
                    throw new LogModel.WrongDataException("group " + group + " index " + (from + i)
                            + ": bytes are no entry ever written there");
                }
            }
        }
    }

    /** One to three operations on distinct groups. */
    static List<LogOp> nextBatch(RaftLogEngine engine, Random random, long version) {
        List<LogOp> ops = new ArrayList<>();
        Set<Long> used = new HashSet<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            long g = random.nextInt(RaftLogStressOptions.GROUPS);
            if (!used.add(g)) {
                continue;
            }
            long first = engine.firstIndex(g).orElse(-1);
            long last = engine.lastIndex(g).orElse(-1);
            int kind = random.nextInt(100);
            if (kind < 55 || last < 0) {
                ops.add(new LogOp.Append(g, last < 0 ? 1 : last + 1, 1 + random.nextInt(8), version));
            } else if (kind < 67) {
                // A new leader overwrites the uncommitted tail; never below the first index.
                long from = Math.max(first + 1, last - random.nextInt(6));
                ops.add(new LogOp.Append(g, Math.min(from, last + 1), 1 + random.nextInt(8), version));
            } else if (kind < 75) {
                if (last - first > 40) {
                    ops.add(new LogOp.Compact(g, first + 1 + random.nextInt((int) (last - first - 20))));
                }
            } else if (kind < 95) {
                ops.add(new LogOp.Put(g, LogOp.KEYS.get(random.nextInt(LogOp.KEYS.size())), version));
            } else {
                ops.add(new LogOp.Delete(g, LogOp.KEYS.get(random.nextInt(LogOp.KEYS.size()))));
            }
        }
        if (ops.isEmpty()) {
            ops.add(new LogOp.Put(0, "hs", version));
        }
        return ops;
    }
}
