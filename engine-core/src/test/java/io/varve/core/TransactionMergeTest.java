package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import io.varve.core.txn.LockTimeoutException;
import io.varve.core.txn.TransactionConflictException;
import io.varve.core.txn.TransactionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Merges inside transactions: read through the transaction's batch, written at commit, guarded like puts. */
class TransactionMergeTest {

    private static final MergeOperator ADD = MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    private static final byte[] KEY = "counter".getBytes(StandardCharsets.UTF_8);

    private final AtomicInteger operatorCalls = new AtomicInteger();
    private Db db;

    @BeforeEach
    void open() throws IOException {
        MergeOperator counted = new MergeOperator() {
            @Override
            public String name() {
                return "counted-add";
            }

            @Override
            public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
                operatorCalls.incrementAndGet();
                return ADD.fullMerge(key, existing, operands);
            }
        };
        db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(new MemFileSystem())
                .withMergeOperator(counted));
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static byte[] int64(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void readsApplyTheTransactionsOperandsOverTheDatabaseAndCommitWritesThem() {
        db.put(KEY, int64(10));
        db.merge(KEY, int64(5));
        try (Transaction t = db.beginTransaction()) {
            t.merge(KEY, int64(1));
            t.merge(KEY, int64(2));
            assertArrayEquals(int64(18), t.get(KEY));
            try (DbIterator it = t.iterator(ReadOptions.DEFAULT, db.defaultColumnFamily())) {
                it.seekToFirst();
                assertTrue(it.valid());
                assertArrayEquals(int64(18), it.value());
                it.next();
                assertFalse(it.valid());
            }
            assertArrayEquals(int64(15), db.get(KEY), "nothing reaches the database before commit");
            t.delete(KEY);
            t.merge(KEY, int64(4));
            assertArrayEquals(int64(4), t.get(KEY), "operands after the transaction's delete have no base");
            t.put(KEY, int64(100));
            t.merge(KEY, int64(7));
            assertArrayEquals(int64(107), t.get(KEY), "operands after its put apply to that put");
            t.commit();
        }
        assertArrayEquals(int64(107), db.get(KEY));
    }

    @Test
    void aMergeReadsNothingWhenItIsWritten() {
        db.put(KEY, int64(1));
        try (Transaction t = db.beginTransaction()) {
            operatorCalls.set(0);
            t.merge(KEY, int64(1));
            assertEquals(0, operatorCalls.get(), "merging called the operator");
            t.commit();
        }
        assertArrayEquals(int64(2), db.get(KEY));
    }

    @Test
    void anOptimisticMergeConflictsWithAWriteAfterItsSnapshot() {
        try (Transaction t = db.beginTransaction()) {
            t.merge(KEY, int64(1));
            db.merge(KEY, int64(5));
            assertThrows(TransactionConflictException.class, t::commit);
        }
        assertArrayEquals(int64(5), db.get(KEY), "the failed commit wrote nothing");
        Transaction first = db.beginTransaction();
        Transaction second = db.beginTransaction();
        first.merge(KEY, int64(1));
        second.merge(KEY, int64(2));
        first.commit();
        assertThrows(TransactionConflictException.class, second::commit);
        assertArrayEquals(int64(6), db.get(KEY));
    }

    @Test
    void anOptimisticMergeOfAnUntouchedKeyCommits() {
        try (Transaction t = db.beginTransaction()) {
            t.merge(KEY, int64(3));
            db.put("other".getBytes(StandardCharsets.UTF_8), int64(0));
            t.commit();
        }
        assertArrayEquals(int64(3), db.get(KEY));
    }

    @Test
    void aPessimisticMergeLocksTheKey() {
        Transaction holder = db.beginTransaction(WriteOptions.DEFAULT,
                TransactionOptions.pessimistic(Duration.ofSeconds(30)));
        holder.merge(KEY, int64(1));
        Transaction impatient = db.beginTransaction(WriteOptions.DEFAULT, TransactionOptions.pessimistic(Duration.ZERO));
        assertThrows(LockTimeoutException.class, () -> impatient.merge(KEY, int64(2)));
        impatient.rollback();
        holder.commit();
        assertArrayEquals(int64(1), db.get(KEY));
    }

    @Test
    void aMergeIntoAFamilyWithoutOperatorIsRefusedAndNotRecorded() {
        ColumnFamily plain = db.createColumnFamily("plain", ColumnFamilyOptions.defaults());
        try (Transaction t = db.beginTransaction()) {
            assertThrows(IllegalStateException.class, () -> t.merge(plain, KEY, int64(1)));
            t.put(plain, KEY, int64(2));
            t.commit();
        }
        assertArrayEquals(int64(2), db.get(plain, KEY));
        assertNull(db.get(KEY));
    }
}
