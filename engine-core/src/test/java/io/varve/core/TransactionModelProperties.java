package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.merge.MergeOperators;
import io.varve.core.txn.LockTimeoutException;
import io.varve.core.txn.TransactionConflictException;
import io.varve.core.txn.TransactionOptions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Interleaved optimistic and pessimistic transactions, plain writes, snapshots, flushes, compactions and clean
 * reopens, against a model that knows which commits must fail. The model keeps the committed values (int64
 * counters, so merges add) and, per key, the step of its last committed write: an optimistic commit must fail
 * with {@link TransactionConflictException}, writing nothing, exactly when a key it read for update or wrote
 * was written after it began; a pessimistic transaction must be refused a lock another open pessimistic
 * transaction holds (zero lock timeout, so the refusal is immediate) and its commit never fails. Reads inside a
 * transaction must see its own writes over its snapshot (optimistic) or the latest committed state
 * (pessimistic); snapshot reads must see the state at the snapshot. A failing sequence prints its steps.
 */
class TransactionModelProperties {

    private static final Path DIR = Path.of("/txn");
    private static final int KEYS = 3;
    private static final int MAX_OPEN = 3;

    /** One open transaction and what the model expects of it. */
    private static final class OpenTxn {
        final Transaction txn;
        final boolean pessimistic;
        /** The model step at begin: a tracked key written after it makes an optimistic commit fail. */
        final long begunAt;
        /** The committed state at begin (optimistic reads see it). */
        final Map<String, Long> snapshot;
        /** The transaction's own writes, in order: a value, null for a delete, or a merge operand. */
        final List<Write> writes = new ArrayList<>();
        final Set<String> tracked = new HashSet<>();

        OpenTxn(Transaction txn, boolean pessimistic, long begunAt, Map<String, Long> snapshot) {
            this.txn = txn;
            this.pessimistic = pessimistic;
            this.begunAt = begunAt;
            this.snapshot = snapshot;
        }
    }

    private record Write(String key, Long value, boolean merge) {
    }

    private record HeldSnapshot(Snapshot snapshot, Map<String, Long> state) {
    }

    /** The model: committed values, the step each key was last written at, and who holds each lock. */
    private final Map<String, Long> committed = new TreeMap<>();
    private final Map<String, Long> lastWrite = new HashMap<>();
    private final Map<String, OpenTxn> locks = new HashMap<>();
    private long step;

    @Property(tries = 60)
    void transactionsCommitOrFailAsTheModelSays(@ForAll long seed) throws IOException {
        committed.clear();
        lastWrite.clear();
        locks.clear();
        step = 0;
        Random random = new Random(seed);
        Options options = Options.defaults().withFileSystem(new MemFileSystem()).withWriteBufferSize(64 << 10)
                .withMergeOperator(MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN));
        List<OpenTxn> open = new ArrayList<>();
        List<HeldSnapshot> snapshots = new ArrayList<>();
        StringBuilder trace = new StringBuilder();
        int conflicts = 0;
        int commits = 0;
        int refusedLocks = 0;
        Db db = Db.open(DIR, options);
        try {
            for (int i = 0; i < 150; i++) {
                step++;
                int action = random.nextInt(100);
                String key = "k" + random.nextInt(KEYS);
                long value = random.nextInt(50);
                OpenTxn t = open.isEmpty() ? null : open.get(random.nextInt(open.size()));
                trace.append("\n").append(step).append(": ");
                if (action < 12 && open.size() < MAX_OPEN) {
                    boolean pessimistic = random.nextBoolean();
                    trace.append(pessimistic ? "begin pessimistic" : "begin optimistic");
                    Transaction txn = db.beginTransaction(WriteOptions.DEFAULT, pessimistic
                            ? TransactionOptions.pessimistic(Duration.ZERO) : TransactionOptions.optimistic());
                    open.add(new OpenTxn(txn, pessimistic, step, new TreeMap<>(committed)));
                } else if (action < 45 && t != null) {
                    int kind = random.nextInt(4);
                    trace.append(describe(t)).append(' ').append(switch (kind) {
                        case 0 -> "put " + key + "=" + value;
                        case 1 -> "delete " + key;
                        case 2 -> "merge " + key + "+" + value;
                        default -> "getForUpdate " + key;
                    });
                    if (!lockRefused(t, key, () -> txnOp(t, kind, key, value))) {
                        t.tracked.add(key);
                        if (t.pessimistic) {
                            locks.put(key, t);
                        }
                    } else {
                        refusedLocks++;
                    }
                } else if (action < 55 && t != null) {
                    trace.append(describe(t)).append(" get ").append(key);
                    assertEquals(txnView(t).get(key), decode(t.txn.get(key.getBytes())), trace::toString);
                } else if (action < 67 && t != null) {
                    open.remove(t);
                    boolean mustFail = !t.pessimistic && t.tracked.stream()
                            .anyMatch(k -> lastWrite.getOrDefault(k, 0L) > t.begunAt);
                    trace.append(describe(t)).append(" commit, expecting ").append(mustFail ? "conflict" : "success");
                    try {
                        t.txn.commit();
                        if (mustFail) {
                            fail("the commit should have failed with a conflict" + trace);
                        }
                        // The batch lands on what is committed now (a pessimistic transaction's locks do
                        // not stop plain writes): puts replace, deletes remove, merges add, in order.
                        for (Write w : t.writes) {
                            apply(committed, w);
                            lastWrite.put(w.key(), step);
                        }
                        commits++;
                    } catch (TransactionConflictException e) {
                        if (!mustFail) {
                            throw new AssertionError("unexpected conflict" + trace, e);
                        }
                        conflicts++;
                    }
                    unlock(t);
                } else if (action < 70 && t != null) {
                    trace.append(describe(t)).append(" rollback");
                    open.remove(t);
                    t.txn.rollback();
                    unlock(t);
                } else if (action < 80) {
                    int kind = random.nextInt(3);
                    trace.append(switch (kind) {
                        case 0 -> "db put " + key + "=" + value;
                        case 1 -> "db delete " + key;
                        default -> "db merge " + key + "+" + value;
                    });
                    switch (kind) {
                        case 0 -> db.put(key.getBytes(), encode(value));
                        case 1 -> db.delete(key.getBytes());
                        default -> db.merge(key.getBytes(), encode(value));
                    }
                    apply(committed, new Write(key, kind == 1 ? null : value, kind == 2));
                    lastWrite.put(key, step);
                } else if (action < 85) {
                    trace.append("db get ").append(key);
                    assertEquals(committed.get(key), decode(db.get(key.getBytes())), trace::toString);
                } else if (action < 89) {
                    trace.append("take snapshot");
                    snapshots.add(new HeldSnapshot(db.snapshot(), new TreeMap<>(committed)));
                } else if (action < 92 && !snapshots.isEmpty()) {
                    HeldSnapshot s = snapshots.get(random.nextInt(snapshots.size()));
                    trace.append("read snapshot ").append(key);
                    assertEquals(s.state().get(key), decode(db.get(ReadOptions.at(s.snapshot()), key.getBytes())),
                            trace::toString);
                    if (random.nextBoolean()) {
                        snapshots.remove(s);
                        s.snapshot().close();
                    }
                } else if (action < 95) {
                    trace.append("flush");
                    db.flush();
                } else if (action < 97) {
                    trace.append("compact");
                    db.compactRange(null, null);
                } else {
                    trace.append("reopen (rolls back ").append(open.size()).append(" open transactions)");
                    for (OpenTxn o : open) {
                        o.txn.rollback();
                        unlock(o);
                    }
                    open.clear();
                    snapshots.forEach(s -> s.snapshot().close());
                    snapshots.clear();
                    db.close();
                    db = Db.open(DIR, options);
                    for (int k = 0; k < KEYS; k++) {
                        assertEquals(committed.get("k" + k), decode(db.get(("k" + k).getBytes())), trace::toString);
                    }
                }
            }
        } finally {
            for (OpenTxn o : open) {
                o.txn.rollback();
            }
            snapshots.forEach(s -> s.snapshot().close());
            db.close();
        }
        // The sequences must reach what the property is named for: many see a commit fail and a lock refused.
        Statistics.label("conflicts").collect(conflicts > 0);
        Statistics.label("refused locks").collect(refusedLocks > 0);
        Statistics.label("commits").collect(commits > 0);
        Statistics.label("conflicts").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("refused locks").coverage(c -> c.check(true).percentage(p -> p >= 30));
        Statistics.label("commits").coverage(c -> c.check(true).percentage(p -> p >= 90));
    }

    /** Runs a transaction operation; true when the model says a lock is held by another open transaction. */
    private boolean lockRefused(OpenTxn t, String key, Runnable op) {
        OpenTxn holder = locks.get(key);
        boolean refused = t.pessimistic && holder != null && holder != t;
        try {
            op.run();
        } catch (LockTimeoutException e) {
            if (!refused) {
                throw new AssertionError(describe(t) + " refused a lock no other transaction holds", e);
            }
            return true;
        }
        if (refused) {
            throw new AssertionError(describe(t) + " got the lock on " + key + " that " + describe(holder)
                    + " holds");
        }
        return false;
    }

    private void txnOp(OpenTxn t, int kind, String key, long value) {
        switch (kind) {
            case 0 -> {
                t.txn.put(key.getBytes(), encode(value));
                t.writes.add(new Write(key, value, false));
            }
            case 1 -> {
                t.txn.delete(key.getBytes());
                t.writes.add(new Write(key, null, false));
            }
            case 2 -> {
                t.txn.merge(key.getBytes(), encode(value));
                t.writes.add(new Write(key, value, true));
            }
            default -> assertEquals(txnView(t).get(key), decode(t.txn.getForUpdate(key.getBytes())),
                    () -> describe(t) + " getForUpdate " + key);
        }
    }

    /** What the transaction reads: its own writes over its snapshot (optimistic) or the committed state. */
    private Map<String, Long> txnView(OpenTxn t) {
        Map<String, Long> view = new TreeMap<>(t.pessimistic ? committed : t.snapshot);
        for (Write w : t.writes) {
            apply(view, w);
        }
        return view;
    }

    private static void apply(Map<String, Long> state, Write w) {
        if (w.merge()) {
            state.merge(w.key(), w.value(), Long::sum);
        } else if (w.value() == null) {
            state.remove(w.key());
        } else {
            state.put(w.key(), w.value());
        }
    }

    private void unlock(OpenTxn t) {
        locks.values().removeIf(holder -> holder == t);
    }

    private static String describe(OpenTxn t) {
        return (t.pessimistic ? "pessimistic " : "optimistic ") + t.txn;
    }

    private static byte[] encode(long v) {
        return MergeOperators.int64(v, ByteOrder.LITTLE_ENDIAN);
    }

    private static Long decode(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        assertEquals(Long.BYTES, bytes.length);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
