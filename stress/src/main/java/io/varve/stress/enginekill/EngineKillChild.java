package io.varve.stress.enginekill;

import io.varve.base.fs.DiskFileSystem;
import io.varve.base.fs.FileSystem;
import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.Transaction;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.txn.TransactionOptions;
import io.varve.stress.Corruptions;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The engine kill campaign's child: opens the database, creates its column families if missing, prints
 * {@code READY}, and runs until it is killed:
 *
 * <ul>
 *   <li>{@value KillSpace#THREADS} writer threads, each on its own keys in all families: batches of one to
 *       seven puts, deletes, merges ({@link KillMerge}) and range deletes across the families (a quarter
 *       synced); one write in eight through a transaction instead, optimistic or pessimistic (the same
 *       operations without range deletes, which transactions lack), that reads some keys it writes and commits
 *       them as one write; and now and then an external table written with {@link SstFileWriter} and
 *       ingested. Before each write a thread prints {@code W <thread> <index> <batch>}, after it returned
 *       {@code A <thread> <index>}; each thread checks some of its own keys by point reads against its own
 *       model (it is their only writer);</li>
 *   <li>a maintenance thread: flushes, {@code compactRange} of parts or all of a family, {@code syncWal}, and,
 *       when given a directory for them, checkpoints (with or without a flush first): it prints {@code C <n>
 *       start} before each and {@code C <n> done} after it, then deletes the one before, so the parent can
 *       open the last finished checkpoint after the kill and judge it. Ingestions wait while a checkpoint
 *       runs, as docs/operations.md asks: a table ingested during one may be in it without writes committed
 *       before it;</li>
 *   <li>a reader thread: snapshots read twice, with flushes and compactions in between, by full scans, bounded
 *       scans forward or backward and multiGet, which must agree, every value one that a write produced.</li>
 * </ul>
 * A disagreement is printed as {@code E <what>}, which fails the cycle. Lines are flushed one by one.
 *
 * <p>Arguments: database directory, staging directory for the external tables, seed, cycle, and optionally a
 * directory for checkpoints (emptied first).
 *
 * <p>The I/O error campaign runs the same workload in-process ({@link #inProcess}): lines go to a consumer
 * instead of stdout, any exception goes to a handler instead of becoming an {@code E} line, the loops end at
 * {@link #stop()}, and the maintenance thread tells a {@link SyncListener} around each flush and log sync.
 */
public final class EngineKillChild {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), false,
            StandardCharsets.UTF_8);
    /** Merges mostly go to this many keys of each family (indexes 0 up), so their chains grow long. */
    private static final int HOT_MERGE_KEYS = 6;
    /** Only a hang could make a pessimistic transaction wait this long: no two threads share a key. */
    private static final Duration LOCK_TIMEOUT = Duration.ofSeconds(30);

    private final Db db;
    private final List<ColumnFamily> families;
    private final Path staging;
    private final long cycle;
    private final FileSystem stagingFileSystem;
    private final Consumer<String> out;
    private final Consumer<Throwable> onThrow;
    private final SyncListener syncs;
    /** Where checkpoints go; null for none. */
    private final Path checkpoints;
    /** Ingestions hold it shared, a checkpoint exclusively. */
    private final ReadWriteLock ingestOrCheckpoint = new ReentrantReadWriteLock();
    private long checkpointsTaken;
    private volatile boolean stopped;

    /** Told around each successful flush or log sync, which makes every write acknowledged before it durable. */
    interface SyncListener {
        /** Called before the flush or sync starts; returns what {@link #synced} gets back. */
        Object starting();

        /** Called after it returned normally. */
        void synced(Object token);
    }

    private EngineKillChild(Db db, List<ColumnFamily> families, FileSystem stagingFileSystem, Path staging,
            long cycle, Consumer<String> out, Consumer<Throwable> onThrow, SyncListener syncs, Path checkpoints) {
        this.db = db;
        this.families = families;
        this.stagingFileSystem = stagingFileSystem;
        this.staging = staging;
        this.cycle = cycle;
        this.out = out;
        this.onThrow = onThrow;
        this.syncs = syncs;
        this.checkpoints = checkpoints;
    }

    /**
     * The workload for an in-process campaign: external tables are written on {@code stagingFileSystem} (the
     * database's, so ingestion can take them), {@code out} gets the {@code W}/{@code A}/{@code E} lines,
     * {@code onThrow} every exception that ends a thread. {@link #start} runs it.
     */
    static EngineKillChild inProcess(Db db, List<ColumnFamily> families, FileSystem stagingFileSystem, Path staging,
            long cycle, Consumer<String> out, Consumer<Throwable> onThrow, SyncListener syncs) {
        return new EngineKillChild(db, families, stagingFileSystem, staging, cycle, out, onThrow, syncs, null);
    }

    /** Starts the writers, the maintenance thread and the reader; they run until {@link #stop()} or they throw. */
    List<Thread> start(long seed) {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < KillSpace.THREADS; t++) {
            int thread = t;
            Random random = new Random(seed * 31 + t);
            threads.add(Thread.ofPlatform().name("writer-" + t).start(() -> guard(() -> write(thread, random))));
        }
        Random random = new Random(seed * 31 + KillSpace.THREADS);
        threads.add(Thread.ofPlatform().name("maintenance").start(() -> guard(() -> maintain(random))));
        Random readerRandom = new Random(seed * 31 + KillSpace.THREADS + 1);
        threads.add(Thread.ofPlatform().name("reader").start(() -> guard(() -> read(readerRandom))));
        return threads;
    }

    /** Makes every loop end after its current operation. */
    void stop() {
        stopped = true;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path staging = Path.of(args[1]);
        long seed = Long.parseLong(args[2]);
        long cycle = Long.parseLong(args[3]);
        Path checkpoints = args.length > 4 ? Path.of(args[4]) : null;
        Corruptions.deleteDirectory(staging);
        Files.createDirectories(staging);
        if (checkpoints != null) {
            Corruptions.deleteDirectory(checkpoints);
            Files.createDirectories(checkpoints);
        }
        Db db = Db.open(dir, KillSpace.options());
        List<ColumnFamily> families = families(db);
        EngineKillChild child = new EngineKillChild(db, families, DiskFileSystem.INSTANCE, staging, cycle,
                EngineKillChild::print, t -> print("E " + Thread.currentThread().getName() + " threw "
                        + t.toString().replace('\n', ' ')), null, checkpoints);
        print("READY");
        for (Thread thread : child.start(seed)) {
            thread.join();
        }
    }

    /** The families of {@link KillSpace#FAMILIES}, in order, created if missing. */
    static List<ColumnFamily> families(Db db) {
        List<ColumnFamily> families = new ArrayList<>();
        families.add(db.defaultColumnFamily());
        for (int f = 1; f < KillSpace.FAMILIES.size(); f++) {
            String name = KillSpace.FAMILIES.get(f);
            ColumnFamilyOptions options = KillSpace.familyOptions(f);
            families.add(db.columnFamily(name).orElseGet(() -> db.createColumnFamily(name, options)));
        }
        return families;
    }

    private void say(String line) {
        out.accept(line);
    }

    private static void print(String line) {
        synchronized (OUT) {
            OUT.println(line);
            OUT.flush();
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    /** Any exception in a thread of the workload is a finding: report it and stop that thread. */
    private void guard(Work work) {
        try {
            work.run();
        } catch (Throwable t) {
            onThrow.accept(t);
        }
    }

    private void write(int thread, Random random) throws Exception {
        long[][] model = readOwnKeys(thread);
        for (int index = 0; !stopped; index++) {
            long version = KillSpace.version(cycle, thread, index);
            KillBatch batch;
            if (random.nextInt(25) == 0) {
                batch = ingest(thread, index, version, random);
            } else if (random.nextInt(8) == 0) {
                batch = nextBatch(random, random.nextBoolean() ? KillBatch.Route.OPTIMISTIC_TRANSACTION
                        : KillBatch.Route.PESSIMISTIC_TRANSACTION);
                say("W " + thread + " " + index + " " + batch.encode());
                commitTransaction(thread, batch, version, model, random);
            } else {
                batch = nextBatch(random, KillBatch.Route.BATCH);
                WriteBatch wb = new WriteBatch();
                for (KillBatch.Op op : batch.ops()) {
                    ColumnFamily cf = families.get(op.family());
                    byte[] key = KillSpace.key(thread, op.index());
                    switch (op.kind()) {
                        case 'P' -> wb.put(cf, key, KillSpace.value(thread, op.family(), op.index(), version));
                        case 'D' -> wb.delete(cf, key);
                        case 'M' -> wb.merge(cf, key, KillMerge.operand(thread, op.family(), op.index(), version));
                        default -> wb.deleteRange(cf, key, KillSpace.key(thread, op.end()));
                    }
                }
                say("W " + thread + " " + index + " " + batch.encode());
                db.write(wb, batch.synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            }
            say("A " + thread + " " + index);
            batch.applyTo(model, version);
            if (index % 20 == 19) {
                checkOwnKeys(thread, model, random);
            }
        }
    }

    private KillBatch ingest(int thread, int index, long version, Random random) throws IOException {
        int family = random.nextInt(families.size());
        KillBatch batch = nextIngestion(random, family);
        Path file = staging.resolve("t" + thread + "-" + index + ".sst");
        try (SstFileWriter writer = new SstFileWriter(stagingFileSystem, file, TableOptions.defaults(),
                KillSpace.FAMILIES.get(family))) {
            for (KillBatch.Op op : batch.ops()) {
                byte[] key = KillSpace.key(thread, op.index());
                if (op.kind() == 'P') {
                    writer.put(key, KillSpace.value(thread, family, op.index(), version));
                } else {
                    writer.delete(key);
                }
            }
            writer.finish();
        }
        say("W " + thread + " " + index + " " + batch.encode());
        ingestOrCheckpoint.readLock().lock();
        try {
            db.ingestExternalFiles(families.get(family), List.of(file),
                    IngestOptions.defaults().withMoveFiles(random.nextBoolean()));
        } finally {
            ingestOrCheckpoint.readLock().unlock();
        }
        if (stagingFileSystem.exists(file)) {
            stagingFileSystem.delete(file);
        }
        return batch;
    }

    /**
     * Writes the batch through a transaction of its route, committed with its sync option. The thread owns
     * the keys, so no commit may conflict: a {@code TransactionConflictException} ends the thread as a finding.
     * Reads through the transaction check it against the model: some keys by {@code getForUpdate} before the
     * transaction writes them, and one key it wrote by {@code get}, which must see the transaction's own
     * writes (its merge operands applied over the database's value).
     */
    private void commitTransaction(int thread, KillBatch batch, long version, long[][] model, Random random) {
        TransactionOptions kind = batch.route() == KillBatch.Route.PESSIMISTIC_TRANSACTION
                ? TransactionOptions.pessimistic(LOCK_TIMEOUT) : TransactionOptions.optimistic();
        long[][] expected = KillSpace.copy(model);
        try (Transaction txn = db.beginTransaction(batch.synced() ? WriteOptions.SYNC : WriteOptions.DEFAULT,
                kind)) {
            for (KillBatch.Op op : batch.ops()) {
                ColumnFamily cf = families.get(op.family());
                byte[] key = KillSpace.key(thread, op.index());
                if (random.nextInt(4) == 0) {
                    checkRead(thread, op.family(), op.index(), txn.getForUpdate(cf, key), expected,
                            "getForUpdate in a " + kind + " transaction");
                }
                switch (op.kind()) {
                    case 'P' -> txn.put(cf, key, KillSpace.value(thread, op.family(), op.index(), version));
                    case 'D' -> txn.delete(cf, key);
                    case 'M' -> txn.merge(cf, key, KillMerge.operand(thread, op.family(), op.index(), version));
                    default -> throw new IllegalStateException("a transaction cannot " + op);
                }
                KillBatch.apply(op, expected, version);
            }
            KillBatch.Op read = batch.ops().get(random.nextInt(batch.ops().size()));
            checkRead(thread, read.family(), read.index(), txn.get(families.get(read.family()),
                    KillSpace.key(thread, read.index())), expected, "a get through a " + kind + " transaction");
            txn.commit();
        }
    }

    private void checkRead(int thread, int family, int index, byte[] value, long[][] expected, String how) {
        long read = stateAt(thread, family, index, value);
        if (read != expected[family][index]) {
            say("E " + how + " of " + KillSpace.FAMILIES.get(family) + "/" + KillSpace.describe(new int[] {thread,
                    index}) + " read state " + Long.toHexString(read) + ", the model has "
                    + Long.toHexString(expected[family][index]));
        }
    }

    /**
     * Range deletes first (whether a range delete covers a put earlier in the same batch is not what this
     * campaign tests; transactions have none), then one to six puts, deletes and merges, then the marker of
     * every family touched. One batch in three merges: mostly into a few keys per family, so that chains of
     * operands grow across memtables and tables between the puts and deletes that end them, sometimes the
     * same key two or three times in a row.
     */
    private KillBatch nextBatch(Random random, KillBatch.Route route) {
        List<KillBatch.Op> ops = new ArrayList<>();
        Set<Integer> touched = new TreeSet<>();
        if (route == KillBatch.Route.BATCH && random.nextInt(8) == 0) {
            int family = random.nextInt(families.size());
            int from = random.nextInt(KillSpace.KEYS);
            ops.add(KillBatch.Op.deleteRange(family, from, Math.min(KillSpace.KEYS, from + 1 + random.nextInt(30))));
            touched.add(family);
        }
        boolean merging = random.nextInt(3) == 0;
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
            int family = random.nextInt(families.size());
            int index = random.nextInt(KillSpace.KEYS);
            int kind = random.nextInt(5);
            if (kind == 0) {
                ops.add(KillBatch.Op.delete(family, index));
            } else if (merging && kind < 3) {
                int hot = random.nextInt(4) == 0 ? index : random.nextInt(HOT_MERGE_KEYS);
                for (int repeat = random.nextInt(4) == 0 ? 2 + random.nextInt(2) : 1; repeat > 0; repeat--) {
                    ops.add(KillBatch.Op.merge(family, hot));
                }
            } else {
                ops.add(KillBatch.Op.put(family, index));
            }
            touched.add(family);
        }
        for (int family : touched) {
            ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
        }
        return new KillBatch(route, random.nextInt(4) == 0, ops);
    }

    /** Sorted distinct keys of one family, mostly puts, and the marker (which sorts after them) last. */
    private static KillBatch nextIngestion(Random random, int family) {
        Set<Integer> indexes = new TreeSet<>();
        int n = 5 + random.nextInt(40);
        while (indexes.size() < n) {
            indexes.add(random.nextInt(KillSpace.KEYS));
        }
        List<KillBatch.Op> ops = new ArrayList<>();
        for (int index : indexes) {
            ops.add(random.nextInt(7) == 0 ? KillBatch.Op.delete(family, index) : KillBatch.Op.put(family, index));
        }
        ops.add(KillBatch.Op.put(family, KillSpace.MARKER));
        return new KillBatch(KillBatch.Route.INGEST, true, ops);
    }

    private long[][] readOwnKeys(int thread) {
        long[][] state = KillSpace.emptyState();
        for (int f = 0; f < families.size(); f++) {
            for (int index = 0; index <= KillSpace.MARKER; index++) {
                state[f][index] = stateAt(thread, f, index, db.get(families.get(f), KillSpace.key(thread, index)));
            }
        }
        return state;
    }

    private void checkOwnKeys(int thread, long[][] model, Random random) {
        for (int i = 0; i < 10; i++) {
            int f = random.nextInt(families.size());
            int index = random.nextInt(KillSpace.MARKER + 1);
            long read = stateAt(thread, f, index, db.get(families.get(f), KillSpace.key(thread, index)));
            if (read != model[f][index]) {
                say("E thread " + thread + " read state " + Long.toHexString(read) + " of "
                        + KillSpace.FAMILIES.get(f) + "/" + new String(KillSpace.key(thread, index),
                        StandardCharsets.US_ASCII) + ", its last write there was " + Long.toHexString(model[f][index]));
            }
        }
    }

    /** The state ({@link KillMerge}) a read of this place returned, {@link KillSpace#ABSENT} for none. */
    private static long stateAt(int thread, int family, int index, byte[] value) {
        if (value == null) {
            return KillSpace.ABSENT;
        }
        Long state = KillSpace.stateOf(thread, family, index, value);
        if (state == null) {
            throw new IllegalStateException("a read of " + KillSpace.FAMILIES.get(family) + "/"
                    + new String(KillSpace.key(thread, index), StandardCharsets.US_ASCII) + " returned "
                    + value.length + " bytes no write produced");
        }
        return state;
    }

    private void maintain(Random random) throws IOException {
        while (!stopped) {
            int choice = random.nextInt(10);
            ColumnFamily cf = families.get(random.nextInt(families.size()));
            if (choice < 3) {
                Object token = syncs == null ? null : syncs.starting();
                db.flush();
                if (syncs != null) {
                    syncs.synced(token);
                }
            } else if (choice < 5) {
                int thread = random.nextInt(KillSpace.THREADS);
                int from = random.nextInt(KillSpace.KEYS);
                db.compactRange(cf, KillSpace.key(thread, from), KillSpace.key(thread, Math.min(KillSpace.MARKER,
                        from + random.nextInt(100))));
            } else if (choice < 6) {
                db.compactRange(cf, null, null);
            } else if (choice < 7 && checkpoints != null) {
                checkpoint(random.nextBoolean());
            } else {
                Object token = syncs == null ? null : syncs.starting();
                db.syncWal();
                if (syncs != null) {
                    syncs.synced(token);
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(100)));
        }
    }

    private void checkpoint(boolean flushFirst) throws IOException {
        long n = ++checkpointsTaken;
        ingestOrCheckpoint.writeLock().lock();
        try {
            say("C " + n + " start");
            db.checkpoint(checkpoints.resolve(checkpointName(n)), flushFirst);
            say("C " + n + " done");
        } finally {
            ingestOrCheckpoint.writeLock().unlock();
        }
        if (n > 1) {
            Corruptions.deleteDirectory(checkpoints.resolve(checkpointName(n - 1)));
        }
    }

    static String checkpointName(long n) {
        return "checkpoint-" + n;
    }

    /** Reads a snapshot twice (background work runs in between): both reads, by three means, must agree. */
    private void read(Random random) {
        while (!stopped) {
            int f = random.nextInt(families.size());
            ColumnFamily cf = families.get(f);
            try (Snapshot snapshot = db.snapshot()) {
                ReadOptions at = ReadOptions.at(snapshot);
                Map<String, Long> first = scan(at, cf, f, false);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(200)));
                Map<String, Long> second = scan(at, cf, f, false);
                if (!first.equals(second)) {
                    say("E a snapshot of " + KillSpace.FAMILIES.get(f) + " scanned twice gave " + first.size()
                            + " then " + second.size() + " keys, or other versions");
                }
                int thread = random.nextInt(KillSpace.THREADS);
                ReadOptions bounded = ReadOptions.at(snapshot).withLowerBound(KillSpace.key(thread, 0))
                        .withUpperBound(KillSpace.key(thread, KillSpace.MARKER));
                boolean backward = random.nextBoolean();
                Map<String, Long> part = scan(bounded, cf, f, backward);
                Map<String, Long> expected = new TreeMap<>(first);
                String prefix = "t" + thread + "k";
                expected.keySet().removeIf(k -> !k.startsWith(prefix));
                if (!part.equals(expected)) {
                    say("E a bounded " + (backward ? "backward " : "") + "scan of thread " + thread + "'s keys in "
                            + KillSpace.FAMILIES.get(f)
                            + " disagrees with the full scan of the same snapshot");
                }
                List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    byte[] key = KillSpace.key(random.nextInt(KillSpace.THREADS), random.nextInt(KillSpace.MARKER + 1));
                    keys.add(key);
                }
                List<byte[]> values = db.multiGet(at, cf, keys);
                for (int i = 0; i < keys.size(); i++) {
                    int[] k = KillSpace.parseKey(keys.get(i));
                    long got = values.get(i) == null ? KillSpace.ABSENT : stateAt(k[0], f, k[1], values.get(i));
                    Long scanned = first.get(new String(keys.get(i), StandardCharsets.US_ASCII));
                    if (got != (scanned == null ? KillSpace.ABSENT : scanned)) {
                        say("E multiGet of " + Arrays.toString(k) + " in " + KillSpace.FAMILIES.get(f)
                                + " disagrees with a scan of the same snapshot");
                    }
                }
            }
        }
    }

    /** Backward scans resolve merges by another path (a key's entries oldest first), so both directions run. */
    private Map<String, Long> scan(ReadOptions options, ColumnFamily cf, int family, boolean backward) {
        Map<String, Long> state = new TreeMap<>();
        try (DbIterator it = db.iterator(options, cf)) {
            if (backward) {
                it.seekToLast();
            } else {
                it.seekToFirst();
            }
            for (; it.valid(); step(it, backward)) {
                int[] k = KillSpace.parseKey(it.key());
                if (k == null) {
                    throw new IllegalStateException("a scan returned a key no write produced");
                }
                String key = new String(it.key(), StandardCharsets.US_ASCII);
                if (state.put(key, stateAt(k[0], family, k[1], it.value())) != null) {
                    throw new IllegalStateException("a " + (backward ? "backward " : "") + "scan returned " + key
                            + " twice");
                }
            }
        }
        return state;
    }

    private static void step(DbIterator it, boolean backward) {
        if (backward) {
            it.prev();
        } else {
            it.next();
        }
    }
}
