package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import io.varve.core.merge.LongMergeOperator;
import io.varve.core.merge.MergeOperator;
import io.varve.core.merge.MergeOperators;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * int64Add's folding fast path ({@link LongMergeOperator}) against the general path ({@code fullMerge} over
 * copied operands): two databases take the same writes, one with the operator as it is, one with the same
 * operator hidden behind a plain {@link MergeOperator}, and every read must give the same outcome on both,
 * value or failure (its type and message), while operands sit in memtables, level-0 tables and compacted
 * levels, across reopens. Operands near the ends of the range make sums wrap around; operands and values of
 * the wrong length must fail the read (or be returned as stored, for a value with no operand above it)
 * exactly as the general path does.
 */
class MergeFastPathProperties {

    sealed interface Op permits Put, Merge, Delete, Get, Scan, Flush, Compact, Reopen {
    }

    record Put(int key, byte[] value) implements Op {
    }

    record Merge(int key, byte[] operand) implements Op {
    }

    record Delete(int key) implements Op {
    }

    record Get(int key) implements Op {
    }

    record Scan(boolean backward) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    record Reopen() implements Op {
    }

    /** {@code operator} behind an interface that offers only the general path. */
    static MergeOperator generalPath(MergeOperator operator) {
        return new MergeOperator() {
            @Override
            public String name() {
                return operator.name();
            }

            @Override
            public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
                return operator.fullMerge(key, existing, operands);
            }

            @Override
            public byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
                return operator.partialMerge(key, operands);
            }
        };
    }

    @Property(tries = 150)
    void fastPathReadsLikeTheGeneralPath(@ForAll("operations") List<Op> ops,
                                         @ForAll("successiveMergeLimits") int maxSuccessiveMerges)
            throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path fastDir = Path.of("/fast");
        Path generalDir = Path.of("/general");
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(new CompactionSettings(2, 64 << 10, 4, 16 << 10))
                .withMaxSuccessiveMerges(maxSuccessiveMerges);
        assertInstanceOf(LongMergeOperator.class, fastOperator());
        Db fast = Db.open(fastDir, options.withMergeOperator(fastOperator()));
        Db general = Db.open(generalDir, options.withMergeOperator(generalPath(fastOperator())));
        try {
            int step = 0;
            for (Op op : ops) {
                step++;
                String where = "step " + step + ": " + op;
                switch (op) {
                    case Put p -> {
                        fast.put(key(p.key), p.value);
                        general.put(key(p.key), p.value);
                    }
                    case Merge m -> {
                        fast.merge(key(m.key), m.operand);
                        general.merge(key(m.key), m.operand);
                    }
                    case Delete d -> {
                        fast.delete(key(d.key));
                        general.delete(key(d.key));
                    }
                    case Get g -> {
                        assertEquals(get(general, g.key), get(fast, g.key), where);
                        assertEquals(getInto(general, g.key), getInto(fast, g.key), where);
                    }
                    case Scan s -> assertEquals(scan(general, s.backward), scan(fast, s.backward), where);
                    case Flush f -> {
                        fast.flush();
                        general.flush();
                    }
                    case Compact c -> {
                        fast.compactRange(null, null);
                        general.compactRange(null, null);
                    }
                    case Reopen r -> {
                        fast.close();
                        general.close();
                        fast = Db.open(fastDir, options.withMergeOperator(fastOperator()));
                        general = Db.open(generalDir, options.withMergeOperator(generalPath(fastOperator())));
                    }
                }
            }
            for (int k = 0; k < KEYS; k++) {
                assertEquals(get(general, k), get(fast, k), "at the end, key " + k);
            }
        } finally {
            fast.close();
            general.close();
        }
    }

    private static final int KEYS = 4;

    private static MergeOperator fastOperator() {
        return MergeOperators.int64Add(ByteOrder.LITTLE_ENDIAN);
    }

    private static byte[] key(int k) {
        return new byte[] {'k', (byte) k};
    }

    /** The value as hex, "absent", or the failure's type and message. */
    private static String get(Db db, int k) {
        try {
            byte[] value = db.get(key(k));
            return value == null ? "absent" : HexFormat.of().formatHex(value);
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    /** As {@link #get(Db, int)}, through the zero-copy lookup into a caller's segment. */
    private static String getInto(Db db, int k) {
        byte[] out = new byte[16];
        try {
            long length = db.get(ReadOptions.DEFAULT, MemorySegment.ofArray(key(k)), MemorySegment.ofArray(out));
            return length < 0 ? "absent"
                    : HexFormat.of().formatHex(out, 0, (int) Math.min(length, out.length)) + "/" + length;
        } catch (RuntimeException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    /** Every key and value a scan shows, then the failure that ended it, if one did. */
    private static List<String> scan(Db db, boolean backward) {
        List<String> seen = new ArrayList<>();
        try (DbIterator it = db.iterator()) {
            if (backward) {
                for (it.seekToLast(); it.valid(); it.prev()) {
                    seen.add(HexFormat.of().formatHex(it.key()) + "=" + HexFormat.of().formatHex(it.value()));
                }
            } else {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    seen.add(HexFormat.of().formatHex(it.key()) + "=" + HexFormat.of().formatHex(it.value()));
                }
            }
        } catch (RuntimeException e) {
            seen.add(e.getClass().getName() + ": " + e.getMessage());
        }
        return seen;
    }

    @Provide
    Arbitrary<Integer> successiveMergeLimits() {
        return Arbitraries.of(0, 0, 1, 3);
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Long> numbers = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.longs().between(-1000, 1000)),
                Tuple.of(2, Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
                        -1L, 1L << 62)),
                Tuple.of(1, Arbitraries.longs()));
        Arbitrary<byte[]> wellFormed = numbers.map(n -> MergeOperators.int64(n, ByteOrder.LITTLE_ENDIAN));
        Arbitrary<byte[]> malformed = Arbitraries.of(0, 1, 4, 7, 9, 16).flatMap(length ->
                Arbitraries.bytes().array(byte[].class).ofSize(length));
        Arbitrary<byte[]> bytes = Arbitraries.frequencyOf(Tuple.of(12, wellFormed), Tuple.of(1, malformed));
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(3, Combinators.combine(keys, bytes).as(Put::new)),
                Tuple.of(12, Combinators.combine(keys, bytes).as(Merge::new)),
                Tuple.of(1, keys.map(Delete::new)),
                Tuple.of(6, keys.map(Get::new)),
                Tuple.of(1, Arbitraries.of(true, false).map(Scan::new)),
                Tuple.of(1, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())));
        return op.list().ofMinSize(1).ofMaxSize(80);
    }
}
