package io.varve.core.ingest;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Single-threaded model of {@link RangeLatch}: with nobody waiting, {@code tryAcquire} must succeed exactly
 * when no held range overlaps, and releases (including repeated closes) must free exactly their range.
 */
class RangeLatchProperties {

    sealed interface Op permits Try, Release {
    }

    /** Try to hold keys {@code [first, first + length]} (single bytes; 0xFF wraps are clamped). */
    record Try(int first, int length) implements Op {
    }

    record Release(int index, boolean twice) implements Op {
    }

    private record Held(int first, int last, RangeLatch.Guard guard) {
    }

    @Property(tries = 300)
    void tryAcquireSucceedsExactlyWhenNothingHeldOverlaps(@ForAll("operations") List<Op> ops) {
        RangeLatch latch = new RangeLatch();
        List<Held> model = new ArrayList<>();
        for (Op op : ops) {
            switch (op) {
                case Try t -> {
                    int last = Math.min(255, t.first() + t.length());
                    boolean free = model.stream().noneMatch(h -> h.first() <= last && t.first() <= h.last());
                    RangeLatch.Guard guard = latch.tryAcquire(key(t.first()), key(last));
                    if (free) {
                        assertNotNull(guard, () -> "[" + t.first() + ", " + last + "] is free, held: " + model);
                        model.add(new Held(t.first(), last, guard));
                    } else {
                        assertNull(guard, () -> "[" + t.first() + ", " + last + "] overlaps one of " + model);
                    }
                }
                case Release r -> {
                    if (!model.isEmpty()) {
                        Held held = model.remove(r.index() % model.size());
                        held.guard().close();
                        if (r.twice()) {
                            held.guard().close();
                        }
                    }
                }
            }
            assertEquals(model.size(), latch.queuedCount());
        }
    }

    private static byte[] key(int value) {
        return new byte[] {(byte) value};
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        // A narrow key space so that overlaps are common; 0x80 and up check unsigned order.
        Arbitrary<Op> tryOp = Combinators.combine(Arbitraries.integers().between(120, 140),
                Arbitraries.integers().between(0, 6)).as(Try::new);
        Arbitrary<Op> release = Combinators.combine(Arbitraries.integers().between(0, 50),
                Arbitraries.of(true, false)).as(Release::new);
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, tryOp), net.jqwik.api.Tuple.of(2, release))
                .list().ofMaxSize(60);
    }
}
