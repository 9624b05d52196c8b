package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The memtable set against a model of live families, which of them hold writes and which have a spare ready:
 * a rotation seals exactly the families holding writes, takes their spares when ready and allocates only for
 * those without one, dropped families refuse writes, and every memtable the set allocated and kept is freed
 * by close.
 */
class MemtableSetProperties {

    private static final long BUFFER = 64 << 10;

    /** Write to, add, drop a family; rotate; or let the background executor run. */
    record Op(int kind, int family) {
        static final int WRITE = 0;
        static final int ROTATE = 1;
        static final int ADD = 2;
        static final int DROP = 3;
        static final int BACKGROUND = 4;
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 5))
                .as(Op::new).list().ofMaxSize(60);
    }

    @Property(tries = 200)
    void rotationsSealWhatHoldsWritesAndUseReadySpares(@ForAll("operations") List<Op> ops) {
        ReentrantLock lock = new ReentrantLock();
        List<Runnable> background = new ArrayList<>();
        List<Memtable> allocated = new ArrayList<>();
        List<Memtable> handedOut = new ArrayList<>();
        Memtable first = new Memtable(MemtableSet.capacity(BUFFER, 0));
        handedOut.add(first);
        MemtableSet set = new MemtableSet(List.of(new MemtableSet.FamilyMemtable(0, first, BUFFER)), lock,
                background::add, capacity -> {
                    Memtable m = new Memtable(capacity);
                    allocated.add(m);
                    return m;
                });
        set.prepareSparesLater();
        // The model: live family -> holds writes; families whose spare is ready; allocations under the lock.
        TreeMap<Integer, Boolean> live = new TreeMap<>();
        live.put(0, false);
        Set<Integer> spares = new HashSet<>();
        long inline = 0;
        int nextFamily = 1;
        try {
            for (Op op : ops) {
                lock.lock();
                try {
                    switch (op.kind()) {
                        case Op.WRITE -> {
                            int family = op.family() % nextFamily;
                            int[] families = {family};
                            if (!live.containsKey(family)) {
                                assertThrows(IllegalArgumentException.class, () -> set.fits(families, 100));
                                continue;
                            }
                            assertTrue(set.fits(families, 100));
                            ActiveMemtable[] targets = set.assign(families, 100);
                            targets[family].finishedApplying(100);
                            live.put(family, true);
                        }
                        case Op.ROTATE -> {
                            TreeSet<Integer> sealed = new TreeSet<>();
                            for (MemtableSet.Sealed s : set.rotate(new int[0], 0)) {
                                sealed.add(s.family());
                                handedOut.add(s.fresh());
                            }
                            TreeSet<Integer> expected = new TreeSet<>();
                            live.forEach((family, holdsWrites) -> {
                                if (holdsWrites) {
                                    expected.add(family);
                                }
                            });
                            assertEquals(expected, sealed);
                            for (int family : expected) {
                                if (!spares.remove(family)) {
                                    inline++;
                                }
                                live.put(family, false);
                            }
                        }
                        case Op.ADD -> {
                            Memtable m = new Memtable(MemtableSet.capacity(BUFFER, 0));
                            handedOut.add(m);
                            set.addFamily(nextFamily, m, BUFFER);
                            live.put(nextFamily, false);
                            nextFamily++;
                        }
                        case Op.DROP -> {
                            int family = op.family() % nextFamily;
                            live.remove(family);
                            spares.remove(family);
                        }
                        default -> { }
                    }
                } finally {
                    lock.unlock();
                }
                if (op.kind() == Op.DROP) {
                    set.removeFamily(op.family() % nextFamily);
                } else if (op.kind() == Op.ROTATE || op.kind() == Op.ADD) {
                    set.prepareSparesLater();
                } else if (op.kind() == Op.BACKGROUND) {
                    List<Runnable> queued = new ArrayList<>(background);
                    background.clear();
                    queued.forEach(Runnable::run);
                    if (!queued.isEmpty()) {
                        spares.addAll(live.keySet());
                    }
                }
                assertEquals(inline, set.createdInline(), "after " + op);
            }
        } finally {
            set.close();
        }
        Set<Memtable> kept = new HashSet<>(handedOut);
        for (Memtable m : allocated) {
            if (!kept.contains(m)) {
                assertTrue(m.isFreed(), "a spare the set kept is freed by close");
            }
        }
        handedOut.forEach(Memtable::release);
        background.clear();
    }
}
