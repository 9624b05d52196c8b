package io.varve.core;

import io.varve.core.internal.DbImpl;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.txn.DeadlockException;
import io.varve.core.txn.LockTimeoutException;
import io.varve.core.txn.TransactionConflictException;
import io.varve.core.txn.TransactionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransactionTest {

    private static final TransactionOptions PESSIMISTIC = TransactionOptions.pessimistic(Duration.ofSeconds(30));

    /** One thread per waiter: the common pool may have a single thread on a small machine. */
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Db db;

    @BeforeEach
    void open() throws IOException {
        db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(new MemFileSystem()).withWriteBufferSize(1 << 20));
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        db.close();
    }

    @Test
    void readsItsOwnWritesAndCommitsThemAtomically() {
        db.put(b("a"), b("1"));
        try (Transaction t = db.beginTransaction()) {
            t.put(b("b"), b("2"));
            t.delete(b("a"));
            assertNull(t.get(b("a")));
            assertArrayEquals(b("2"), t.get(b("b")));
            assertArrayEquals(b("1"), db.get(b("a")), "nothing reaches the database before commit");
            assertNull(db.get(b("b")));
            List<String> seen = new ArrayList<>();
            try (DbIterator it = t.iterator(ReadOptions.DEFAULT, db.defaultColumnFamily())) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    seen.add(new String(it.key(), StandardCharsets.UTF_8));
                }
            }
            assertEquals(List.of("b"), seen);
            t.commit();
        }
        assertNull(db.get(b("a")));
        assertArrayEquals(b("2"), db.get(b("b")));
    }

    @Test
    void rollbackAndCloseDiscardEverything() {
        try (Transaction t = db.beginTransaction()) {
            t.put(b("x"), b("1"));
            t.rollback();
            assertThrows(IllegalStateException.class, t::commit);
        }
        try (Transaction t = db.beginTransaction()) {
            t.put(b("y"), b("1"));
        }
        assertNull(db.get(b("x")));
        assertNull(db.get(b("y")));
    }

    @Test
    void optimisticReadsSeeTheSnapshotAndAConflictingWriteFailsTheCommit() {
        db.put(b("k"), b("old"));
        Transaction t = db.beginTransaction();
        db.put(b("k"), b("new"));
        assertArrayEquals(b("old"), t.getForUpdate(b("k")), "reads see the snapshot taken at begin");
        t.put(b("other"), b("v"));
        assertThrows(TransactionConflictException.class, t::commit);
        assertNull(db.get(b("other")), "a refused commit writes nothing");
        assertThrows(IllegalStateException.class, t::commit);
    }

    @Test
    void aConflictOnAWrittenKeyOrADeletionCountsToo() {
        Transaction writer = db.beginTransaction();
        writer.put(b("w"), b("mine"));
        db.delete(b("w"));
        assertThrows(TransactionConflictException.class, writer::commit);

        Transaction reader = db.beginTransaction();
        assertNull(reader.get(b("plain")));
        db.put(b("plain"), b("x"));
        reader.put(b("unrelated"), b("y"));
        reader.commit(); // plain get() does not guard the key
        assertArrayEquals(b("y"), db.get(b("unrelated")));
    }

    @Test
    void aRangeDeletionCoveringATrackedKeyIsAConflict() {
        db.put(b("m"), b("1"));
        Transaction t = db.beginTransaction();
        t.getForUpdate(b("m"));
        db.deleteRange(b("a"), b("z"));
        t.put(b("m"), b("2"));
        assertThrows(TransactionConflictException.class, t::commit);
        assertNull(db.get(b("m")));
    }

    @Test
    void aConflictingWriteFoundOnlyInATableStillFailsTheCommit() {
        db.put(b("f"), b("old"));
        db.flush();
        Transaction flushed = db.beginTransaction();
        flushed.getForUpdate(b("f"));
        db.put(b("f"), b("new"));
        db.flush();
        flushed.put(b("f"), b("mine"));
        assertThrows(TransactionConflictException.class, flushed::commit);

        Transaction compacted = db.beginTransaction();
        compacted.getForUpdate(b("f"));
        db.put(b("f"), b("newer"));
        db.flush();
        db.compactRange(null, null);
        compacted.put(b("f"), b("mine"));
        assertThrows(TransactionConflictException.class, compacted::commit);

        Transaction rangeDeleted = db.beginTransaction();
        rangeDeleted.getForUpdate(b("f"));
        db.deleteRange(b("e"), b("g"));
        db.flush();
        rangeDeleted.put(b("f"), b("mine"));
        assertThrows(TransactionConflictException.class, rangeDeleted::commit);
        assertNull(db.get(b("f")));
    }

    @Test
    void aKeyLastWrittenBeforeTheSnapshotDoesNotConflictWhereverItLies() {
        db.put(b("s"), b("0"));
        db.flush();
        db.compactRange(null, null);
        db.put(b("t"), b("0"));
        db.flush();
        Transaction t = db.beginTransaction();
        assertArrayEquals(b("0"), t.getForUpdate(b("s")));
        assertArrayEquals(b("0"), t.getForUpdate(b("t")));
        // Newer tables that hold other keys only.
        db.put(b("r"), b("x"));
        db.flush();
        db.put(b("u"), b("x"));
        t.put(b("s"), b("1"));
        t.put(b("t"), b("1"));
        t.commit();
        assertArrayEquals(b("1"), db.get(b("s")));
        assertArrayEquals(b("1"), db.get(b("t")));
    }

    @Test
    void theFirstOfTwoOptimisticTransactionsOnAKeyWins() {
        Transaction first = db.beginTransaction();
        Transaction second = db.beginTransaction();
        first.getForUpdate(b("c"));
        second.getForUpdate(b("c"));
        first.put(b("c"), b("1"));
        second.put(b("c"), b("2"));
        first.commit();
        assertThrows(TransactionConflictException.class, second::commit);
        assertArrayEquals(b("1"), db.get(b("c")));
    }

    @Test
    void pessimisticLocksMakeOthersWaitUntilTheTimeout() {
        Transaction holder = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        holder.put(b("k"), b("1"));
        Transaction impatient = db.beginTransaction(WriteOptions.DEFAULT, TransactionOptions.pessimistic(Duration.ZERO));
        assertThrows(LockTimeoutException.class, () -> impatient.getForUpdate(b("k")));
        impatient.rollback();
        holder.commit();
        try (Transaction after = db.beginTransaction(WriteOptions.DEFAULT, TransactionOptions.pessimistic(Duration.ZERO))) {
            assertArrayEquals(b("1"), after.getForUpdate(b("k")), "commit released the lock");
        }
    }

    @Test
    void aWaitingTransactionGetsTheLockWhenTheHolderCommits() throws Exception {
        Transaction holder = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        holder.put(b("k"), b("1"));
        Transaction waiter = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> waiter.getForUpdate(b("k")), threads);
        awaitWaiting(waiter);
        holder.commit();
        assertArrayEquals(b("1"), read.get(30, TimeUnit.SECONDS), "reads see the latest committed state");
        waiter.rollback();
    }

    @Test
    void aDeadlockOfThreeTransactionsIsRefusedNamingTheCycle() throws Exception {
        Transaction a = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        Transaction b = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        Transaction c = db.beginTransaction(WriteOptions.DEFAULT, PESSIMISTIC);
        a.put(b("k1"), b("a"));
        b.put(b("k2"), b("b"));
        c.put(b("k3"), b("c"));
        CompletableFuture<Void> aWaits = CompletableFuture.runAsync(() -> a.put(b("k2"), b("a")), threads);
        awaitWaiting(a);
        CompletableFuture<Void> bWaits = CompletableFuture.runAsync(() -> b.put(b("k3"), b("b")), threads);
        awaitWaiting(b);
        DeadlockException deadlock = assertThrows(DeadlockException.class, () -> c.put(b("k1"), b("c")));
        assertEquals(3, deadlock.cycle().size(), deadlock.getMessage());
        assertTrue(deadlock.getMessage().contains(a.toString()) && deadlock.getMessage().contains(b.toString())
                && deadlock.getMessage().contains(c.toString()), deadlock.getMessage());
        c.rollback();
        bWaits.get(30, TimeUnit.SECONDS);
        b.commit();
        aWaits.get(30, TimeUnit.SECONDS);
        a.commit();
        assertArrayEquals(b("a"), db.get(b("k2")));
        assertArrayEquals(b("b"), db.get(b("k3")));
        assertArrayEquals(b("a"), db.get(b("k1")));
    }

    @Test
    void committingAfterTheDatabaseClosedFailsCleanly() {
        Transaction t = db.beginTransaction();
        t.put(b("k"), b("v"));
        db.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, t::commit);
        assertInstanceOf(IllegalStateException.class, closed);
        t.close();
    }

    /** Spins (bounded) until {@code t} waits for a lock: the waits must be in place before the next step. */
    private void awaitWaiting(Transaction t) throws ExecutionException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!((DbImpl) db).keyLocks().isWaiting(t)) {
            if (System.nanoTime() > deadline) {
                throw new ExecutionException(new AssertionError(t + " never started waiting"));
            }
            Thread.onSpinWait();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
