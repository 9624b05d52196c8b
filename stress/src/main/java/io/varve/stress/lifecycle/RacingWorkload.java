package io.varve.stress.lifecycle;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operations the lifecycle campaign races against {@code close()}: each runs in a loop on its own thread
 * until the database refuses it. Writers and the ingester own their keys and remember what was acknowledged,
 * so that the next open can check it; readers check that every value is one a write produced.
 *
 * <p>What ended each loop is recorded by operation and exception type; an exception is expected only if it is
 * an {@link IllegalStateException} saying the database is closed. Anything else, and any wrong value, is a
 * finding.
 */
final class RacingWorkload {
    static final int WRITERS = 2;
    static final int KEYS = 200;
    /** The writers' keys, then the ingester's: {@link #WRITERS} is the ingester's owner number. */
    static final int OWNERS = WRITERS + 1;
    static final int INGEST_KEYS = 16;

    private final Db db;
    private final Path staging;
    private final Random seeds;
    private final long cycle;
    /** Per owner: the version of each key after its acknowledged writes, and the write in flight if any. */
    private final long[][] acknowledged;
    private final long[][][] inFlight = new long[OWNERS][][];
    private final Map<String, AtomicLong> endings = new ConcurrentHashMap<>();
    private final List<String> findings = new ArrayList<>();
    private final AtomicLong operations = new AtomicLong();

    RacingWorkload(Db db, Path staging, long seed, long cycle, long[][] acknowledged) {
        this.db = db;
        this.staging = staging;
        this.seeds = new Random(seed);
        this.cycle = cycle;
        this.acknowledged = acknowledged;
    }

    static long[][] emptyState() {
        long[][] s = new long[OWNERS][KEYS];
        for (long[] o : s) {
            Arrays.fill(o, -1);
        }
        return s;
    }

    static byte[] key(int owner, int index) {
        return String.format("o%dk%04d", owner, index).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int owner, int index, long version) {
        byte[] b = new byte[8 + (int) ((version * 7 + index * 13L + owner) & 127)];
        ByteBuffer.wrap(b).putLong(version);
        Arrays.fill(b, 8, b.length, (byte) (index + owner));
        return b;
    }

    /** The version that wrote {@code value} at this key, or null if none did. */
    static Long versionOf(int owner, int index, byte[] value) {
        if (value.length < 8) {
            return null;
        }
        long v = ByteBuffer.wrap(value).getLong();
        return Arrays.equals(value, value(owner, index, v)) ? v : null;
    }

    /** Starts every loop; {@code done} counts down as each one ends. */
    List<Thread> start(CountDownLatch done) {
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int owner = w;
            Random r = new Random(seeds.nextLong());
            threads.add(loop("write", done, () -> write(owner, r)));
        }
        Random ingestRandom = new Random(seeds.nextLong());
        threads.add(loop("ingest", done, () -> ingest(ingestRandom)));
        Random readRandom = new Random(seeds.nextLong());
        threads.add(loop("get", done, () -> get(readRandom)));
        Random iterRandom = new Random(seeds.nextLong());
        threads.add(loop("iterate", done, () -> iterate(iterRandom)));
        threads.add(loop("syncWal", done, db::syncWal));
        Random compactRandom = new Random(seeds.nextLong());
        threads.add(loop("compactRange", done, () -> compact(compactRandom)));
        threads.add(loop("flush", done, db::flush));
        return threads;
    }

    static int loops() {
        return WRITERS + 6;
    }

    private interface Step {
        void run() throws Exception;
    }

    private Thread loop(String name, CountDownLatch done, Step step) {
        return Thread.ofPlatform().daemon().name("lifecycle-" + name).start(() -> {
            try {
                while (true) {
                    step.run();
                    operations.incrementAndGet();
                }
            } catch (Throwable t) {
                ending(name, t);
            } finally {
                done.countDown();
            }
        });
    }

    /**
     * Counts how a loop ended. Every operation that loses the race with close must throw the documented
     * {@link IllegalStateException} whose message ends "is closed"; anything else is a finding.
     */
    private void ending(String operation, Throwable t) {
        String message = t.getMessage() == null ? "" : t.getMessage();
        boolean closed = t instanceof IllegalStateException && message.endsWith(" is closed");
        String kind = operation + ": " + t.getClass().getSimpleName() + (closed ? " (closed)" : "");
        endings.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        if (!closed) {
            finding(operation + " ended with " + t + " at " + Arrays.toString(Arrays.copyOf(t.getStackTrace(),
                    Math.min(6, t.getStackTrace().length))));
        }
    }

    private synchronized void finding(String what) {
        findings.add(what);
    }

    synchronized List<String> findings() {
        return List.copyOf(findings);
    }

    Map<String, AtomicLong> endings() {
        return endings;
    }

    long operations() {
        return operations.get();
    }

    /** Per owner, the state after its acknowledged writes (read once every loop has ended). */
    long[][] acknowledged() {
        return acknowledged;
    }

    /** Per owner, the state after the write in flight when close cut it short, or null if none was. */
    long[][][] inFlight() {
        return inFlight;
    }

    private long version(int owner, int n) {
        return cycle << 40 | (long) owner << 32 | n;
    }

    private void write(int owner, Random random) {
        for (int n = 0; ; n++) {
            long version = version(owner, n);
            WriteBatch batch = new WriteBatch();
            long[] after = acknowledged[owner].clone();
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                int index = random.nextInt(KEYS);
                batch.put(key(owner, index), value(owner, index, version));
                after[index] = version;
            }
            inFlight[owner] = new long[][] {after};
            db.write(batch, random.nextInt(4) == 0 ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            acknowledged[owner] = after;
            inFlight[owner] = null;
            operations.incrementAndGet();
        }
    }

    private void ingest(Random random) throws Exception {
        int owner = WRITERS;
        Files.createDirectories(staging);
        for (int n = 0; ; n++) {
            long version = version(owner, n);
            Path file = staging.resolve("ingest-" + n + ".sst");
            long[] after = acknowledged[owner].clone();
            int from = random.nextInt(KEYS - INGEST_KEYS);
            try (SstFileWriter writer = new SstFileWriter(file, TableOptions.defaults())) {
                for (int index = from; index < from + INGEST_KEYS; index++) {
                    writer.put(key(owner, index), value(owner, index, version));
                    after[index] = version;
                }
                writer.finish();
            }
            inFlight[owner] = new long[][] {after};
            try {
                db.ingestExternalFiles(List.of(file), IngestOptions.defaults().withMoveFiles(random.nextBoolean()));
            } finally {
                Files.deleteIfExists(file);
            }
            acknowledged[owner] = after;
            inFlight[owner] = null;
        }
    }

    private void get(Random random) {
        int owner = random.nextInt(OWNERS);
        int index = random.nextInt(KEYS);
        byte[] v = db.get(key(owner, index));
        if (v != null && versionOf(owner, index, v) == null) {
            finding("get of " + new String(key(owner, index), StandardCharsets.US_ASCII) + " returned bytes no "
                    + "write produced");
        }
    }

    private void iterate(Random random) {
        try (Snapshot snapshot = random.nextBoolean() ? db.snapshot() : null;
             DbIterator it = db.iterator(snapshot == null ? ReadOptions.DEFAULT : ReadOptions.at(snapshot))) {
            int steps = random.nextInt(300);
            for (it.seekToFirst(); it.valid() && steps-- > 0; it.next()) {
                String k = new String(it.key(), StandardCharsets.US_ASCII);
                int owner = k.charAt(1) - '0';
                int index = Integer.parseInt(k.substring(3));
                if (versionOf(owner, index, it.value()) == null) {
                    finding("an iterator returned bytes no write produced at " + k);
                }
            }
        }
    }

    private void compact(Random random) {
        if (random.nextInt(3) == 0) {
            db.compactRange(null, null);
        } else {
            int owner = random.nextInt(OWNERS);
            int from = random.nextInt(KEYS);
            db.compactRange(key(owner, from), key(owner, Math.min(KEYS - 1, from + 40)));
        }
    }
}
