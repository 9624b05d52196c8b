package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;

/**
 * Memtable admission: each column family's mutable memtable, whether a batch fits in it, the memtable half of a
 * rotation, and a spare memtable per family prepared ahead of time.
 *
 * <p>Why spares: a memtable's arena is allocated and zeroed up front (64 MiB at the default write buffer
 * size). A rotation runs under the log lock, where every writer waits, so it must not allocate: each family
 * keeps one spare, prepared on the background executor outside every lock, and a rotation only swaps it in. A
 * rotation allocates under the lock only when a family's spare is not ready yet (two rotations within one
 * preparation) or too small (a single batch larger than the write buffer); {@link #createdInline()} counts
 * those. The price is one extra arena per family.
 *
 * <p>Threading: everything but {@link #prepareSpares()} and {@link #removeFamily}'s wait runs under the
 * pipeline's log lock, which the caller holds; those two take it themselves, briefly. {@code mutables} is
 * replaced, never changed in place, so a writer may keep the array it saw under the lock while it applies.
 */
public final class MemtableSet {

    /** One family's memtable sealed by a rotation, and the fresh one that replaced it. */
    public record Sealed(int family, ActiveMemtable memtable, Memtable fresh) {
    }

    /** A column family's first mutable memtable and its write buffer size. */
    public record FamilyMemtable(int family, Memtable memtable, long writeBufferSize) {
    }

    /**
     * Upper bound on a memtable node's bytes beyond its key and value: the skiplist node (see the memtable's
     * {@code SkiplistNodeLayout}) has a 20-byte header, a tower of 4 bytes per level up to 20 levels and at most
     * 7 bytes of alignment padding, 107 bytes in all. Only a bound: {@link ActiveMemtable#fits} charges it to
     * writes not yet inserted, and counts inserted ones at their real size.
     */
    static final int ENTRY_OVERHEAD = 128;
    private static final int MEMTABLE_SLACK = 64 << 10;
    /** Memtable node links are int offsets, so an arena stays below 2 GiB. */
    private static final long MAX_MEMTABLE_BYTES = (1L << 31) - (1L << 20);
    /** The largest reservation a single batch may make. */
    static final long MAX_RESERVE = MAX_MEMTABLE_BYTES - MEMTABLE_SLACK;

    private final ReentrantLock logLock;
    private final Executor background;
    private final LongFunction<Memtable> newMemtable;
    private final AtomicBoolean sparesScheduled = new AtomicBoolean();

    // Guarded by logLock.
    /** Each family's mutable memtable, indexed by family id (null: no such family). */
    private ActiveMemtable[] mutables;
    /** Each family's spare memtable, same index, and its capacity. */
    private Memtable[] spares;
    private long[] spareCapacities;
    private long createdInline;
    private boolean closed;

    /**
     * @param newMemtable allocates a memtable arena of the given capacity
     * @param background runs {@link #prepareSpares()}
     */
    MemtableSet(List<FamilyMemtable> families, ReentrantLock logLock, Executor background,
                LongFunction<Memtable> newMemtable) {
        this.logLock = logLock;
        this.background = background;
        this.newMemtable = newMemtable;
        int maxId = families.stream().mapToInt(FamilyMemtable::family).max().orElse(0);
        this.mutables = new ActiveMemtable[maxId + 1];
        this.spares = new Memtable[maxId + 1];
        this.spareCapacities = new long[maxId + 1];
        for (FamilyMemtable f : families) {
            mutables[f.family()] = new ActiveMemtable(f.family(), f.memtable(), capacity(f.writeBufferSize(), 0),
                    f.writeBufferSize());
        }
    }

    /** Memtable bytes to reserve for a batch: its keys and values plus a bound on each node's overhead. */
    static long reserve(long payloadBytes, long count) {
        return payloadBytes + count * ENTRY_OVERHEAD;
    }

    /** Arena size for a memtable taking {@code writeBufferSize} of writes, or one batch of {@code reserve}. */
    static long capacity(long writeBufferSize, long reserve) {
        return Math.max(writeBufferSize, reserve) + MEMTABLE_SLACK;
    }

    /**
     * Whether every family the batch writes has room for {@code reserve} more bytes. Caller holds logLock.
     *
     * @throws IllegalArgumentException if one of the families does not exist (never created, or dropped)
     */
    boolean fits(int[] families, long reserve) {
        boolean fits = true;
        for (int family : families) {
            ActiveMemtable m = family < mutables.length ? mutables[family] : null;
            if (m == null) {
                throw new IllegalArgumentException("column family " + family + " does not exist or was dropped");
            }
            fits &= m.fits(reserve);
        }
        return fits;
    }

    /**
     * Promises {@code reserve} bytes in each of {@code families}' memtables to a batch that {@link #fits}.
     * Caller holds logLock.
     *
     * @return the memtables, indexed by family; the batch calls {@link ActiveMemtable#finishedApplying} on each
     *     of its families' once its inserts are done
     */
    ActiveMemtable[] assign(int[] families, long reserve) {
        ActiveMemtable[] targets = mutables;
        for (int family : families) {
            targets[family].assign(reserve);
        }
        return targets;
    }

    /** Whether no write was assigned to any family's mutable memtable. Caller holds logLock. */
    boolean isEmpty() {
        for (ActiveMemtable m : mutables) {
            if (m != null && !m.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Seals every family's memtable that holds anything (or that is too small for the batch that asked,
     * {@code reserve} bytes for {@code families}) and puts a fresh one, the family's spare if it is ready and
     * big enough, in its place. A family whose memtable is empty keeps it: it has nothing in the sealed log.
     * Caller holds logLock and schedules {@link #prepareSparesLater()} after releasing it.
     */
    List<Sealed> rotate(int[] families, long reserve) {
        ActiveMemtable[] next = mutables.clone();
        List<Sealed> sealed = new ArrayList<>();
        for (ActiveMemtable m : mutables) {
            if (m == null) {
                continue;
            }
            long need = contains(families, m.family) ? reserve : 0;
            if (m.isEmpty() && m.fits(need)) {
                continue;
            }
            m.seal();
            long capacity = capacity(m.writeBufferSize, need);
            Memtable memtable;
            if (spares[m.family] != null && spareCapacities[m.family] >= capacity) {
                memtable = spares[m.family];
                capacity = spareCapacities[m.family];
                spares[m.family] = null;
            } else {
                memtable = newMemtable.apply(capacity);
                createdInline++;
            }
            next[m.family] = new ActiveMemtable(m.family, memtable, capacity, m.writeBufferSize);
            sealed.add(new Sealed(m.family, m, memtable));
        }
        mutables = next;
        return sealed;
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }

    /** Makes {@code memtable} the mutable memtable of a new column family. Caller holds logLock. */
    void addFamily(int family, Memtable memtable, long writeBufferSize) {
        int length = Math.max(mutables.length, family + 1);
        ActiveMemtable[] next = Arrays.copyOf(mutables, length);
        next[family] = new ActiveMemtable(family, memtable, capacity(writeBufferSize, 0), writeBufferSize);
        spares = Arrays.copyOf(spares, length);
        spareCapacities = Arrays.copyOf(spareCapacities, length);
        mutables = next;
    }

    /**
     * Refuses further writes to {@code family}, frees its spare, then waits until the writes already assigned
     * to it are applied.
     */
    void removeFamily(int family) {
        ActiveMemtable removed;
        Memtable spare = null;
        logLock.lock();
        try {
            removed = family < mutables.length ? mutables[family] : null;
            if (removed == null) {
                return;
            }
            ActiveMemtable[] next = mutables.clone();
            next[family] = null;
            mutables = next;
            removed.seal();
            spare = spares[family];
            spares[family] = null;
        } finally {
            logLock.unlock();
        }
        if (spare != null) {
            spare.release();
        }
        removed.awaitWritesApplied();
    }

    /** Queues {@link #prepareSpares()} on the background executor unless a run is queued already. */
    void prepareSparesLater() {
        if (sparesScheduled.compareAndSet(false, true)) {
            background.execute(this::prepareSpares);
        }
    }

    /**
     * Gives every family without a spare a fresh memtable of its write buffer size. Allocates (and so zeroes the
     * arenas) outside the lock; a spare no longer wanted once the lock is taken again is freed at once.
     */
    void prepareSpares() {
        sparesScheduled.set(false); // requests from here on need another run: this one may have looked already
        List<ActiveMemtable> needing = new ArrayList<>();
        logLock.lock();
        try {
            if (closed) {
                return;
            }
            for (ActiveMemtable m : mutables) {
                if (m != null && spares[m.family] == null) {
                    needing.add(m);
                }
            }
        } finally {
            logLock.unlock();
        }
        for (ActiveMemtable m : needing) {
            long capacity = capacity(m.writeBufferSize, 0);
            Memtable fresh = newMemtable.apply(capacity);
            logLock.lock();
            try {
                if (!closed && m.family < mutables.length && mutables[m.family] != null
                        && spares[m.family] == null) {
                    spares[m.family] = fresh;
                    spareCapacities[m.family] = capacity;
                    fresh = null;
                }
            } finally {
                logLock.unlock();
            }
            if (fresh != null) {
                fresh.release();
            }
        }
    }

    /** Rotations that found a family's spare missing or too small and allocated its memtable under logLock. */
    long createdInline() {
        logLock.lock();
        try {
            return createdInline;
        } finally {
            logLock.unlock();
        }
    }

    /** Frees every spare; a preparation still running frees what it made. Takes logLock. */
    void close() {
        List<Memtable> unused = new ArrayList<>();
        logLock.lock();
        try {
            closed = true;
            for (int i = 0; i < spares.length; i++) {
                if (spares[i] != null) {
                    unused.add(spares[i]);
                    spares[i] = null;
                }
            }
        } finally {
            logLock.unlock();
        }
        unused.forEach(Memtable::release);
    }
}
