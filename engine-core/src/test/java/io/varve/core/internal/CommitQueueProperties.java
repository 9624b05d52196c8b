package io.varve.core.internal;

import io.varve.core.internal.wal.StickyFailure;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The publication queue against a list: whatever order batches become ready in, the visible sequence is the
 * last sequence of the longest ready prefix, exactly the entries in that prefix are published, and after a
 * failure nothing more is.
 */
class CommitQueueProperties {

    /** Queue a batch of {@code size} sequences, mark the {@code pick}-th unready entry ready, or fail. */
    record Op(int kind, int size, int pick) {
        static final int ENQUEUE = 0;
        static final int READY = 1;
        static final int FAIL = 2;
    }

    /** The oracle's view of one entry. */
    private static final class Modeled {
        final CommitQueue.Entry entry;
        boolean ready;

        Modeled(CommitQueue.Entry entry, boolean ready) {
            this.entry = entry;
            this.ready = ready;
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> kind = Arbitraries.frequency(
                Tuple.of(10, Op.ENQUEUE), Tuple.of(10, Op.READY),
                Tuple.of(1, Op.FAIL));
        return Combinators.combine(kind, Arbitraries.integers().between(1, 5), Arbitraries.integers().between(0, 50))
                .as(Op::new).list().ofMaxSize(80);
    }

    @Property(tries = 300)
    void visibilityFollowsTheLongestReadyPrefix(@ForAll("operations") List<Op> ops) {
        StickyFailure failure = new StickyFailure();
        long start = 100;
        CommitQueue queue = new CommitQueue(start, failure, CommitQueue.Parker.LOCK_SUPPORT);
        List<Modeled> all = new ArrayList<>();
        long nextSequence = start + 1;
        long visible = start;
        boolean failed = false;
        for (Op op : ops) {
            switch (op.kind()) {
                case Op.ENQUEUE -> {
                    if (failed) {
                        continue; // the pipeline refuses new batches once failed
                    }
                    CommitQueue.Entry entry = new CommitQueue.Entry(false);
                    entry.firstSequence = nextSequence;
                    entry.lastSequence = nextSequence + op.size() - 1;
                    nextSequence += op.size();
                    queue.enqueue(entry);
                    all.add(new Modeled(entry, false));
                }
                case Op.READY -> {
                    List<Modeled> unready = all.stream().filter(m -> !m.ready).toList();
                    if (unready.isEmpty()) {
                        continue;
                    }
                    Modeled chosen = unready.get(op.pick() % unready.size());
                    chosen.ready = true;
                    queue.markReady(chosen.entry);
                }
                default -> {
                    failed = true;
                    failure.record(new IOException("injected"), false);
                }
            }
            if (!failed) {
                visible = start;
                for (Modeled m : all) {
                    if (!m.ready) {
                        break;
                    }
                    visible = m.entry.lastSequence;
                }
            }
            assertEquals(visible, queue.visibleSequence(), "after " + op);
            for (Modeled m : all) {
                boolean expectPublished = m.ready && m.entry.lastSequence <= visible;
                assertEquals(expectPublished, m.entry.published, "entry ending at " + m.entry.lastSequence);
            }
        }
    }
}
