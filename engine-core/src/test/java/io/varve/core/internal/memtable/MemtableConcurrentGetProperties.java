package io.varve.core.internal.memtable;

import static io.varve.core.internal.memtable.Entries.segment;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.LookupResult;
import io.varve.core.internal.keys.ValueKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Point lookups while writers race, against an oracle of the writes. Writer threads insert versions of a few
 * keys in an order of their own (so newer versions often land before older ones), and a watermark plays the
 * commit pipeline: it rises to sequence S only once every write at or below S has returned from
 * {@link Memtable#add}. Readers look keys up at the watermark and at older snapshots while the writers run;
 * every answer must be the oracle's, the newest write of the key at or below the snapshot. The point index
 * is sometimes tiny, so keys overflow it and lookups mix index hits with skiplist searches.
 */
class MemtableConcurrentGetProperties {

    private static final long CAPACITY = 1 << 20;
    private static final int WRITERS = 3;

    /** One write; its sequence is its position in the list, plus one. */
    record Write(int key, ValueKind kind, int writer) {
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        Arbitrary<Write> write = Combinators.combine(Arbitraries.integers().between(0, 11),
                Arbitraries.of(ValueKind.PUT, ValueKind.PUT, ValueKind.DELETE),
                Arbitraries.integers().between(0, WRITERS - 1)).as(Write::new);
        return write.list().ofMinSize(1).ofMaxSize(400);
    }

    @Provide
    Arbitrary<Integer> indexSlots() {
        return Arbitraries.of(2, 8, 1024);
    }

    private static byte[] key(int k) {
        // Keys of several lengths, some prefixes of others, sharing a long common prefix like real keys do.
        byte[] key = new byte[9 + k % 4 * 4];
        Arrays.fill(key, (byte) 'k');
        key[key.length - 1] = (byte) k;
        return key;
    }

    private static byte[] value(long sequence) {
        return ("v" + sequence).getBytes();
    }

    @Property(tries = 60)
    void lookupsDuringRacingInsertsSeeTheNewestVersionAtTheirSnapshot(@ForAll("writes") List<Write> writes,
            @ForAll("indexSlots") int indexSlots, @ForAll long seed) throws Exception {
        int n = writes.size();
        Memtable memtable = new Memtable(CAPACITY, indexSlots);
        AtomicIntegerArray done = new AtomicIntegerArray(n + 2);
        AtomicLong visible = new AtomicLong();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch writersDone = new CountDownLatch(WRITERS);
        List<Thread> threads = new ArrayList<>();
        try {
            for (int w = 0; w < WRITERS; w++) {
                List<Integer> mine = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if (writes.get(i).writer() == w) {
                        mine.add(i + 1);
                    }
                }
                Collections.shuffle(mine, new Random(seed + w));
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int sequence : mine) {
                            Write write = writes.get(sequence - 1);
                            byte[] v = write.kind() == ValueKind.PUT ? value(sequence) : new byte[0];
                            if (!memtable.add(segment(key(write.key())), InternalKey.trailer(sequence, write.kind()),
                                    segment(v))) {
                                failures.add("memtable full at sequence " + sequence);
                            }
                            done.set(sequence, 1);
                            advance(done, visible, n);
                        }
                    } catch (Throwable t) {
                        failures.add("writer: " + t);
                    } finally {
                        writersDone.countDown();
                    }
                }));
            }
            threads.add(Thread.ofPlatform().start(() -> {
                Random random = new Random(seed);
                LookupResult result = new LookupResult();
                try {
                    start.await();
                    boolean last = false;
                    while (!last) {
                        // One final round after the writers finished, so every try checks the end state too.
                        last = writersDone.getCount() == 0;
                        long snapshot = visible.get();
                        for (int k = 0; k < 12; k++) {
                            check(memtable, writes, k, snapshot, result, failures);
                            check(memtable, writes, k, random.nextLong(snapshot + 1), result, failures);
                        }
                    }
                } catch (Throwable t) {
                    failures.add("reader: " + t);
                }
            }));
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
            assertEquals(n, visible.get());
        } finally {
            memtable.release();
        }
    }

    /** The commit pipeline's rule: the watermark passes S only when every write up to S is done. */
    private static void advance(AtomicIntegerArray done, AtomicLong visible, int n) {
        while (true) {
            long v = visible.get();
            if (v >= n || done.get((int) v + 1) == 0) {
                return;
            }
            visible.compareAndSet(v, v + 1);
        }
    }

    private static void check(Memtable memtable, List<Write> writes, int k, long snapshot, LookupResult result,
            ConcurrentLinkedQueue<String> failures) {
        long expected = 0;
        for (int i = (int) Math.min(snapshot, writes.size()); i >= 1; i--) {
            if (writes.get(i - 1).key() == k) {
                expected = i;
                break;
            }
        }
        boolean decided = memtable.get(segment(key(k)), snapshot, result);
        String what = "key " + HexFormat.of().formatHex(key(k)) + " at " + snapshot;
        if (expected == 0) {
            if (decided || result.status() != LookupResult.Status.NOT_FOUND) {
                failures.add(what + ": expected not found, got " + result);
            }
            return;
        }
        ValueKind kind = writes.get((int) expected - 1).kind();
        if (!decided || result.sequence() != expected) {
            failures.add(what + ": expected sequence " + expected + ", got " + result
                    + (decided ? " at " + result.sequence() : ""));
        } else if (kind == ValueKind.DELETE && result.status() != LookupResult.Status.DELETED) {
            failures.add(what + ": expected a tombstone, got " + result);
        } else if (kind == ValueKind.PUT && !Arrays.equals(value(expected), Entries.toArray(result.value()))) {
            failures.add(what + ": wrong value");
        }
    }
}
