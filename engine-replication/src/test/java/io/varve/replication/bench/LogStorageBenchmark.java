package io.varve.replication.bench;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.EnumOutter.EntryType;
import com.alipay.sofa.jraft.entity.LogEntry;
import com.alipay.sofa.jraft.entity.LogId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * SOFAJRaft's log storage under many groups: Varve's shared engine-raftlog against jraft's RocksDBLogStorage
 * (one RocksDB per group, jraft's default layout), measured at the {@link LogStorage} interface.
 *
 * <p>Each group has one thread that appends one data entry at a time, synced ({@link RaftOptions#isSync()}),
 * and appends the next as soon as the last returned: the way a jraft node's log-manager thread writes when
 * its group is saturated with single-entry batches. A commit is one such durable {@code appendEntries}.
 * Raft's network and state machine are left out on purpose so that only the storage is compared; no prefix
 * truncation happens in a run this short.
 *
 * <p>A warm-up phase, then one measured phase; the counters are read between phases, with every writer stopped,
 * so they are exact. Device bytes come from the process's {@code /proc/self/io write_bytes} (bytes of page cache the
 * process dirtied, which reach the device; the file system's journal is not included) and, as a cross-check,
 * from each store's own accounting. Fsyncs come from each store's accounting: engine-raftlog's data syncs,
 * RocksDB's {@code WAL_FILE_SYNCED} ticker summed over all groups' databases.
 *
 * <p>Usage: {@code LogStorageBenchmark varve|rocksdb GROUPS ENTRY_BYTES WARMUP_SECONDS SECONDS DIR}; prints one
 * line of {@code key=value} fields.
 */
public final class LogStorageBenchmark {
    private final Store store;
    private final int groups;
    private final int entryBytes;
    private final LongAdder commits = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;

    private LogStorageBenchmark(Store store, int groups, int entryBytes) {
        this.store = store;
        this.groups = groups;
        this.entryBytes = entryBytes;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: LogStorageBenchmark varve|rocksdb GROUPS ENTRY_BYTES WARMUP_SECONDS SECONDS DIR");
            System.exit(2);
        }
        String kind = args[0];
        int groups = Integer.parseInt(args[1]);
        int entryBytes = Integer.parseInt(args[2]);
        double warmupSeconds = Double.parseDouble(args[3]);
        double seconds = Double.parseDouble(args[4]);
        Path dir = Files.createDirectories(Path.of(args[5]));
        Store store = switch (kind) {
            case "varve" -> new VarveStore(dir);
            case "rocksdb" -> new RocksStore(dir);
            default -> throw new IllegalArgumentException("store must be varve or rocksdb: " + kind);
        };
        try (store) {
            new LogStorageBenchmark(store, groups, entryBytes).run(kind, warmupSeconds, seconds);
        }
    }

    private void run(String kind, double warmupSeconds, double seconds) throws Exception {
        List<LogStorage> storages = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            LogStorage storage = store.create(g);
            LogStorageOptions options = new LogStorageOptions();
            options.setConfigurationManager(new ConfigurationManager());
            options.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
            options.setGroupId("bench-" + g);
            if (!storage.init(options)) {
                throw new IllegalStateException("cannot open the log storage of group " + g);
            }
            storages.add(storage);
        }
        phase(storages, warmupSeconds);
        Sample start = sample();
        long nanos = phase(storages, seconds);
        Sample end = sample();
        for (LogStorage storage : storages) {
            storage.shutdown();
        }
        double elapsed = nanos / 1e9;
        long commitCount = end.commits - start.commits;
        double payload = (double) commitCount * entryBytes;
        System.out.printf("store=%s groups=%d entry_bytes=%d seconds=%.2f commits=%d commits_per_s=%.0f"
                        + " fsyncs_per_commit=%.4f device_bytes_per_payload_byte=%.3f"
                        + " store_bytes_per_payload_byte=%.3f device_bytes=%d store_bytes=%d fsyncs=%d%n",
                kind, groups, entryBytes, elapsed, commitCount, commitCount / elapsed,
                (double) (end.fsyncs - start.fsyncs) / Math.max(1, commitCount),
                (end.deviceBytes - start.deviceBytes) / Math.max(1, payload),
                (end.storeBytes - start.storeBytes) / Math.max(1, payload),
                end.deviceBytes - start.deviceBytes, end.storeBytes - start.storeBytes, end.fsyncs - start.fsyncs);
    }

    /**
     * Runs one writer per group for {@code seconds}, then stops them all and waits: the counters sampled
     * between phases are exact, with no writer in the middle of an append. Returns the phase's duration.
     */
    private long phase(List<LogStorage> storages, double seconds) throws InterruptedException {
        running = true;
        CountDownLatch started = new CountDownLatch(storages.size());
        List<Thread> writers = new ArrayList<>(storages.size());
        for (int g = 0; g < storages.size(); g++) {
            LogStorage storage = storages.get(g);
            long seed = g;
            writers.add(Thread.ofPlatform().name("log-writer-" + g).start(() -> {
                started.countDown();
                try {
                    write(storage, seed);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        started.await();
        long begin = System.nanoTime();
        Thread.sleep(Math.round(seconds * 1000));
        running = false;
        for (Thread writer : writers) {
            writer.join();
        }
        long nanos = System.nanoTime() - begin;
        if (failure.get() != null) {
            throw new IllegalStateException("a writer failed", failure.get());
        }
        return nanos;
    }

    private void write(LogStorage storage, long seed) {
        Random random = new Random(seed);
        byte[][] pool = new byte[8][entryBytes];
        for (byte[] data : pool) {
            random.nextBytes(data); // incompressible, so neither store gains from its codec
        }
        long index = storage.getLastLogIndex();
        while (running) {
            index++;
            LogEntry entry = new LogEntry(EntryType.ENTRY_TYPE_DATA);
            entry.setId(new LogId(index, 1));
            entry.setData(ByteBuffer.wrap(pool[(int) (index & 7)]));
            if (storage.appendEntries(List.of(entry)) != 1) {
                throw new IllegalStateException("append of entry " + index + " failed in " + storage);
            }
            commits.increment();
        }
    }

    private Sample sample() throws IOException {
        return new Sample(commits.sum(), store.fsyncs(), ProcessIo.writeBytes(),
                store.bytesWritten());
    }

    private record Sample(long commits, long fsyncs, long deviceBytes, long storeBytes) {
    }

    /** The storage under test: one LogStorage per group, plus the store's own counters. */
    interface Store extends AutoCloseable {
        LogStorage create(int group) throws IOException;

        long fsyncs();

        long bytesWritten();

        @Override
        void close() throws IOException;
    }
}
