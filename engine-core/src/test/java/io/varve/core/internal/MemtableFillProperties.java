package io.varve.core.internal;

import io.varve.core.Options;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.memtable.Memtable;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit pipeline's memtable admission (issue #4 follow-up): memtables fill to within one batch's bound of
 * their capacity and an insert never finds its arena full, for any mix of key and value sizes, with one writer
 * and with several racing.
 */
class MemtableFillProperties {

    record Entry(int keyLength, int valueLength, boolean delete) {
    }

    /** What a rotation saw of a sealed memtable, and the bound of the batch that did not fit. */
    record Seal(long used, long capacity, long refusedReserve) {
    }

    /** The pipeline over one in-memory directory, with every memtable it handed out, released by close. */
    private static final class Harness implements AutoCloseable {
        final List<Memtable> owned = Collections.synchronizedList(new ArrayList<>());
        final List<Seal> seals = Collections.synchronizedList(new ArrayList<>());
        /** The bound of the batch being committed (single-writer runs only). */
        volatile long committing;
        final CommitPipeline pipeline;

        Harness(long writeBufferSize) throws IOException {
            MemFileSystem fs = new MemFileSystem();
            Path dir = Path.of("/fill");
            fs.createDirectories(dir);
            Memtable first = new Memtable(MemtableSet.capacity(writeBufferSize, 0));
            owned.add(first);
            AtomicLong files = new AtomicLong(2);
            pipeline = new CommitPipeline(fs, dir, Options.defaults().withFileSystem(fs)
                    .withWriteBufferSize(writeBufferSize), files::getAndIncrement, 0,
                    List.of(new MemtableSet.FamilyMemtable(0, first, writeBufferSize)), 1,
                    (sealed, lastSequence, logNumber) -> {
                        for (MemtableSet.Sealed s : sealed) {
                            Memtable m = s.memtable().memtable;
                            seals.add(new Seal(m.approximateMemoryUsage(), m.capacity(), committing));
                            owned.add(s.fresh());
                        }
                    }, Runnable::run);
        }

        void commit(List<Entry> entries) {
            WriteBatchBuilder b = new WriteBatchBuilder();
            for (Entry e : entries) {
                b.add(e.delete ? ValueKind.DELETE : ValueKind.PUT, 0, MemorySegment.ofArray(new byte[e.keyLength]),
                        e.delete ? null : MemorySegment.ofArray(new byte[e.valueLength]));
            }
            committing = MemtableSet.reserve(b.payloadBytes(), b.count());
            pipeline.commit(b.sealed(), b.count(), b.payloadBytes(), false, b.columnFamilies());
        }

        @Override
        public void close() throws IOException {
            try {
                pipeline.close();
            } finally {
                owned.forEach(Memtable::release);
            }
        }
    }

    /** Batches of 1 to 5 entries of up to 200 key and 2,000 value bytes: each bound stays under 12 KiB. */
    @Provide
    Arbitrary<List<List<Entry>>> batches() {
        Arbitrary<Entry> entry = Combinators.combine(Arbitraries.integers().between(1, 200),
                Arbitraries.integers().between(0, 2000), Arbitraries.integers().between(0, 9).map(d -> d == 0))
                .as(Entry::new);
        return entry.list().ofMinSize(1).ofMaxSize(5).list().ofMinSize(1).ofMaxSize(200);
    }

    private static final long MAX_RESERVE = MemtableSet.reserve(5L * (200 + 2000 + 11), 5);

    @Property(tries = 60)
    void memtablesFillToWithinOneBatchAndNeverOverflow(@ForAll("batches") List<List<Entry>> batches,
                                                        @ForAll @IntRange(min = 64, max = 192) int bufferKiB)
            throws IOException {
        try (Harness h = new Harness(bufferKiB << 10)) {
            // Cycle through the batches until three memtables were sealed by a batch that did not fit.
            while (h.seals.size() < 3) {
                for (List<Entry> batch : batches) {
                    h.commit(batch);
                }
            }
            for (Seal seal : h.seals) {
                long free = seal.capacity() - seal.used();
                assertTrue(free >= 0 && free < seal.refusedReserve(), () -> "sealed with " + free
                        + " bytes free though the refused batch needed at most " + seal.refusedReserve());
                assertTrue(seal.used() >= seal.capacity() - MAX_RESERVE && seal.used() >= 0.9 * seal.capacity(),
                        () -> "sealed at " + seal.used() + " of " + seal.capacity() + " bytes");
            }
        }
    }

    /** Racing writers: admission counts the room promised to writes still inserting, so none finds its arena full. */
    @Property(tries = 10)
    void racingWritersNeverOverflowAMemtable(@ForAll("batches") List<List<Entry>> batches) throws Exception {
        int writers = 4;
        try (Harness h = new Harness(64 << 10)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int offset = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int round = 0; round < 3; round++) {
                            for (int i = 0; i < batches.size(); i++) {
                                h.commit(batches.get((i + offset) % batches.size()));
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), errors);
            for (Seal seal : h.seals) {
                assertTrue(seal.used() <= seal.capacity());
            }
        }
    }
}
