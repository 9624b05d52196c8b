package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.txn.TransactionConflictException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads move money between accounts in optimistic transactions, retrying on conflict, while another thread
 * sums all balances at snapshots. Every value names the transaction that wrote it, so the committed history
 * can be checked: each account's versions form one chain in which every committed writer read the version
 * before its own (no lost update), the read-from graph over all accounts has no cycle (the history is
 * serializable), the final values are the chains' ends, and the total never changes at any snapshot.
 */
class TransactionSerializabilityTest {

    private static final int ACCOUNTS = 8;
    private static final int THREADS = 4;
    private static final int TRANSFERS_PER_THREAD = 150;
    private static final long INITIAL = 1_000;

    /** A committed transfer: which writer's version of each account it read, and its own id. */
    record Committed(long id, Map<Integer, Long> readFrom) {
    }

    @Test
    void concurrentTransfersFormASerializableHistory() throws Exception {
        try (Db db = Db.open(Path.of("/bank"), Options.defaults().withFileSystem(new MemFileSystem())
                .withWriteBufferSize(256 << 10))) {
            for (int a = 0; a < ACCOUNTS; a++) {
                db.put(account(a), value(INITIAL, 0));
            }
            ConcurrentLinkedQueue<Committed> history = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
            AtomicBoolean running = new AtomicBoolean(true);
            try {
                Future<Integer> auditor = pool.submit(() -> {
                    int audits = 0;
                    while (running.get() || audits == 0) {
                        try (Snapshot snapshot = db.snapshot()) {
                            long total = 0;
                            for (int a = 0; a < ACCOUNTS; a++) {
                                total += balance(db.get(ReadOptions.at(snapshot), account(a)));
                            }
                            assertEquals(ACCOUNTS * INITIAL, total, "total at snapshot " + snapshot.sequence());
                        }
                        audits++;
                    }
                    return audits;
                });
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    long seed = 31L * t + 7;
                    workers.add(pool.submit(() -> transfer(db, new Random(seed), history)));
                }
                for (Future<?> worker : workers) {
                    worker.get(120, TimeUnit.SECONDS);
                }
                running.set(false);
                assertTrue(auditor.get(120, TimeUnit.SECONDS) > 0);
            } finally {
                running.set(false);
                pool.shutdownNow();
            }
            assertEquals(THREADS * TRANSFERS_PER_THREAD, history.size());
            checkSerializable(db, List.copyOf(history));
        }
    }

    private static Void transfer(Db db, Random random, ConcurrentLinkedQueue<Committed> history) {
        for (int done = 0; done < TRANSFERS_PER_THREAD; ) {
            int from = random.nextInt(ACCOUNTS);
            int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
            long amount = random.nextInt(50);
            try (Transaction t = db.beginTransaction()) {
                long id = t.id();
                byte[] fromValue = t.getForUpdate(account(from));
                byte[] toValue = t.getForUpdate(account(to));
                t.put(account(from), value(balance(fromValue) - amount, id));
                t.put(account(to), value(balance(toValue) + amount, id));
                t.commit();
                history.add(new Committed(id, Map.of(from, writer(fromValue), to, writer(toValue))));
                done++;
            } catch (TransactionConflictException retry) {
                // another transfer touched one of the accounts first: try again with fresh reads
            }
        }
        return null;
    }

    private static void checkSerializable(Db db, List<Committed> history) {
        Map<Long, List<Long>> after = new HashMap<>(); // writer -> the transfers that read its versions
        for (int a = 0; a < ACCOUNTS; a++) {
            Map<Long, Long> next = new HashMap<>(); // per account: version's writer -> the writer after it
            for (Committed c : history) {
                Long previous = c.readFrom().get(a);
                if (previous != null) {
                    Long clash = next.put(previous, c.id());
                    assertEquals(null, clash, "account " + a + ": transfers " + clash + " and " + c.id()
                            + " both overwrote the version of transfer " + previous + " (a lost update)");
                    after.computeIfAbsent(previous, k -> new ArrayList<>()).add(c.id());
                }
            }
            long end = 0;
            int length = 0;
            while (next.containsKey(end)) {
                end = next.get(end);
                length++;
            }
            assertEquals(next.size(), length, "account " + a + ": the versions form one chain from the start");
            assertEquals(end, writer(db.get(account(a))), "account " + a + " ends with the chain's last version");
        }
        // Kahn's algorithm over the read-from edges: every committed transfer must be ordered.
        Map<Long, Integer> incoming = new HashMap<>();
        for (Committed c : history) {
            incoming.putIfAbsent(c.id(), 0);
        }
        for (List<Long> readers : after.values()) {
            for (long reader : readers) {
                incoming.merge(reader, 1, Integer::sum);
            }
        }
        // The initial versions (writer 0) are there before every transfer.
        Map<Long, Integer> remaining = new HashMap<>(incoming);
        for (long id : after.getOrDefault(0L, List.of())) {
            remaining.merge(id, -1, Integer::sum);
        }
        ArrayDeque<Long> ready = new ArrayDeque<>();
        remaining.forEach((id, count) -> {
            if (count == 0) {
                ready.add(id);
            }
        });
        int ordered = 0;
        while (!ready.isEmpty()) {
            long id = ready.poll();
            ordered++;
            for (long reader : after.getOrDefault(id, List.of())) {
                if (remaining.merge(reader, -1, Integer::sum) == 0) {
                    ready.add(reader);
                }
            }
        }
        assertEquals(history.size(), ordered, "the read-from graph has a cycle: not serializable");
        long total = 0;
        for (int a = 0; a < ACCOUNTS; a++) {
            total += balance(db.get(account(a)));
        }
        assertEquals(ACCOUNTS * INITIAL, total);
    }

    private static byte[] account(int a) {
        return ("account-" + a).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(long balance, long writer) {
        return (balance + ":" + writer).getBytes(StandardCharsets.UTF_8);
    }

    private static long balance(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        return Long.parseLong(text.substring(0, text.indexOf(':')));
    }

    private static long writer(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        return Long.parseLong(text.substring(text.indexOf(':') + 1));
    }
}
