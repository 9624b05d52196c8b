package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The write path folds a key's memtable operands once there are maxSuccessiveMerges of them. */
class MaxSuccessiveMergesTest {

    private static final Path DIR = Path.of("/successive");
    private static final MergeOperator ADD = MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private static byte[] int64(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    /** Adds like ADD; records the longest operand list a read handed it, and can be told to throw. */
    private static final class Watched implements MergeOperator {
        final AtomicInteger longestChain = new AtomicInteger();
        final AtomicBoolean failing = new AtomicBoolean();

        @Override
        public String name() {
            return "watched-add";
        }

        @Override
        public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
            if (failing.get()) {
                throw new IllegalStateException("told to fail");
            }
            longestChain.accumulateAndGet(operands.size(), Math::max);
            return ADD.fullMerge(key, existing, operands);
        }
    }

    @Test
    void readsNeverWalkMoreThanTheLimitOfMemtableOperands() throws IOException {
        Watched operator = new Watched();
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(operator)
                .withMaxSuccessiveMerges(3);
        try (Db db = Db.open(DIR, options)) {
            db.put(KEY, int64(1000));
            for (int i = 1; i <= 50; i++) {
                db.merge(KEY, int64(i));
                operator.longestChain.set(0);
                assertArrayEquals(int64(1000 + i * (i + 1L) / 2), db.get(KEY));
                assertTrue(operator.longestChain.get() <= 3, "a get applied " + operator.longestChain.get()
                        + " operands after merge " + i);
            }
        }
    }

    @Test
    void withoutTheOptionEveryOperandStaysInTheMemtable() throws IOException {
        Watched operator = new Watched();
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(operator);
        try (Db db = Db.open(DIR, options)) {
            for (int i = 0; i < 10; i++) {
                db.merge(KEY, int64(1));
            }
            assertArrayEquals(int64(10), db.get(KEY));
            assertEquals(10, operator.longestChain.get());
        }
    }

    @Test
    void snapshotsOlderThanAFoldStillReadTheOperandsBelowIt() throws IOException {
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(ADD)
                .withMaxSuccessiveMerges(2);
        try (Db db = Db.open(DIR, options)) {
            db.put(KEY, int64(100));
            db.merge(KEY, int64(1));
            try (Snapshot one = db.snapshot()) {
                db.merge(KEY, int64(2));
                try (Snapshot two = db.snapshot()) {
                    db.merge(KEY, int64(3)); // folded: two operands lie on the put
                    db.merge(KEY, int64(4));
                    assertArrayEquals(int64(110), db.get(KEY));
                    assertArrayEquals(int64(101), db.get(ReadOptions.DEFAULT.withSnapshot(one), KEY));
                    assertArrayEquals(int64(103), db.get(ReadOptions.DEFAULT.withSnapshot(two), KEY));
                    db.compactRange(null, null);
                    assertArrayEquals(int64(101), db.get(ReadOptions.DEFAULT.withSnapshot(one), KEY));
                    assertArrayEquals(int64(103), db.get(ReadOptions.DEFAULT.withSnapshot(two), KEY));
                }
            }
            assertArrayEquals(int64(110), db.get(KEY));
        }
    }

    @Test
    void foldReadsThroughRangeTombstonesAndEarlierRecordsOfItsBatch() throws IOException {
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(ADD)
                .withMaxSuccessiveMerges(1);
        try (Db db = Db.open(DIR, options)) {
            db.put(KEY, int64(100));
            db.merge(KEY, int64(1));
            db.write(new WriteBatch().merge(KEY, int64(2)).deleteRange("a".getBytes(StandardCharsets.UTF_8),
                    "z".getBytes(StandardCharsets.UTF_8)).merge(KEY, int64(5)).merge(KEY, int64(7)),
                    WriteOptions.DEFAULT);
            assertArrayEquals(int64(12), db.get(KEY));
        }
    }

    @Test
    void concurrentWritersFoldingTheSameKeyLoseNoOperand() throws Exception {
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(ADD)
                .withMaxSuccessiveMerges(2).withWriteBufferSize(64 << 10);
        int writers = 4;
        int merges = 400;
        try (Db db = Db.open(DIR, options)) {
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(CompletableFuture.runAsync(() -> {
                    awaitUninterruptibly(start);
                    for (int i = 0; i < merges; i++) {
                        if (i % 3 == 0 && i + 1 < merges) {
                            db.write(new WriteBatch().merge(KEY, int64(1)).merge(KEY, int64(1)), WriteOptions.DEFAULT);
                            i++;
                        } else {
                            db.merge(KEY, int64(1));
                        }
                    }
                }));
            }
            start.countDown();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(2, TimeUnit.MINUTES);
            assertArrayEquals(int64((long) writers * merges), db.get(KEY));
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anOperatorThatThrowsWhileFoldingLeavesTheOperandUnfolded() throws IOException {
        Watched operator = new Watched();
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withMergeOperator(operator)
                .withMaxSuccessiveMerges(2);
        try (Db db = Db.open(DIR, options)) {
            db.merge(KEY, int64(1));
            db.merge(KEY, int64(2));
            operator.failing.set(true);
            db.merge(KEY, int64(3)); // the fold throws: stored as an operand, the write succeeds
            operator.failing.set(false);
            operator.longestChain.set(0);
            assertArrayEquals(int64(6), db.get(KEY));
            assertEquals(3, operator.longestChain.get(), "the three operands are still separate");
        }
    }
}
