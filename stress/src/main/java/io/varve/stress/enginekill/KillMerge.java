package io.varve.stress.enginekill;

import io.varve.core.merge.MergeOperator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The engine kill workload's merge operator, and the bytes it reads and writes.
 *
 * <p>A key's <em>state</em> is one long: the version of its last put ({@link KillSpace#ABSENT} if deleted or
 * never written) extended by one link of a hash chain for each merge since, {@code state * MULTIPLIER +
 * mix(version)}. The model ({@link KillBatch#applyTo}) computes it exactly, a read's bytes name it, and a
 * lost, duplicated or reordered operand changes it: each link multiplies everything before it by an odd
 * constant (a bijection of the 64-bit integers) and adds a scrambled, unique version. With no merge since the
 * put the state is the put's version, so the oracles compare states as they compared versions.
 *
 * <p>A link is an affine map of the state, so a run of operands is one too, {@code state -> state * multiplier
 * + sum}, and runs compose without the state below them: {@code partialMerge} returns the composed run, which
 * lets compaction and memtables fold operands anywhere; the state read must not change whichever they fold.
 *
 * <p>Every operand names the key's thread, index and family, and the operator refuses (throws, which fails
 * the read) an operand of another key or family, and a stored value that is not one this workload made for
 * the key; a merged value carries check bytes drawn from (thread, family, index, state), as put values do.
 *
 * <pre>
 * operand      'O' family(1) thread(1) index(2) count(4) multiplier(8) sum(8)          = 25 bytes
 * merged value 'V' state(8) count(4) check(16)                                       = 29 bytes
 * </pre>
 */
final class KillMerge {
    static final long MULTIPLIER = 0xD1B54A32D192ED03L;
    static final int OPERAND_LENGTH = 25;
    static final int VALUE_LENGTH = 29;
    private static final byte OPERAND = 'O';
    private static final byte MERGED = 'V';
    private static final int CHECK_BYTES = 16;

    /** The operator every family of the workload uses. */
    static final MergeOperator OPERATOR = new MergeOperator() {
        @Override
        public String name() {
            return "varve-stress-hash-chain";
        }

        @Override
        public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
            int[] k = mergeable(key);
            Run run = Run.of(k, operands);
            long state = KillSpace.ABSENT;
            int count = 0;
            if (existing != null) {
                byte[] stored = existing.toArray(ValueLayout.JAVA_BYTE);
                Merged merged = parseValue(k[0], run.family, k[1], stored);
                if (merged != null) {
                    state = merged.state();
                    count = merged.count();
                } else {
                    Long version = KillSpace.versionOf(k[0], run.family, k[1], stored);
                    if (version == null) {
                        throw new IllegalArgumentException("the stored value of " + KillSpace.FAMILIES.get(run.family)
                                + "/" + KillSpace.describe(k) + " (" + stored.length + " bytes) is not one this "
                                + "workload wrote there");
                    }
                    state = version;
                }
            }
            return value(k[0], run.family, k[1], state * run.multiplier + run.sum, count + run.count);
        }

        @Override
        public byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
            int[] k = mergeable(key);
            return Run.of(k, operands).encode(k);
        }
    };

    private KillMerge() {
    }

    /** The state after a merge written with {@code version} onto {@code state}. */
    static long chain(long state, long version) {
        return state * MULTIPLIER + mix(version);
    }

    /** The operand a merge of {@code version} at this place writes. */
    static byte[] operand(int thread, int family, int index, long version) {
        return new Run(family, 1, MULTIPLIER, mix(version)).encode(new int[] {thread, index});
    }

    /** The value a read shows for a key whose state is {@code state} after {@code count} merges. */
    static byte[] value(int thread, int family, int index, long state, int count) {
        byte[] b = new byte[VALUE_LENGTH];
        ByteBuffer buffer = ByteBuffer.wrap(b).put(MERGED).putLong(state).putInt(count);
        SplittableRandom r = new SplittableRandom(state * 31 + family * 1_000_003L + index * 7919L + thread);
        for (int i = 0; i < CHECK_BYTES; i++) {
            buffer.put((byte) r.nextInt());
        }
        return b;
    }

    /** The state and merge count a merged value names at this place; null if it is not one made for it. */
    static Merged parseValue(int thread, int family, int index, byte[] value) {
        if (value.length != VALUE_LENGTH || value[0] != MERGED) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(value, 1, VALUE_LENGTH - 1);
        long state = b.getLong();
        int count = b.getInt();
        if (count < 1 || !Arrays.equals(value, value(thread, family, index, state, count))) {
            return null;
        }
        return new Merged(state, count);
    }

    /** What a merged value names. */
    record Merged(long state, int count) {
    }

    /** A bijective scramble (Stafford's mix 13), so consecutive versions make unrelated links. */
    private static long mix(long version) {
        long z = version + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** {thread, index} of a key that may be merged: an ordinary key of the space, never a marker. */
    private static int[] mergeable(MemorySegment key) {
        byte[] bytes = key.toArray(ValueLayout.JAVA_BYTE);
        int[] k = KillSpace.parseKey(bytes);
        if (k == null || k[1] == KillSpace.MARKER) {
            throw new IllegalArgumentException("a merge on a key the workload never merges: " + bytes.length
                    + " bytes");
        }
        return k;
    }

    /** A run of operands, oldest first, as one affine map of the state. */
    private record Run(int family, int count, long multiplier, long sum) {

        /** Composes operands (oldest first), each of which must name key {@code k} and the same family. */
        static Run of(int[] k, List<MemorySegment> operands) {
            Run run = null;
            for (MemorySegment operand : operands) {
                Run next = decode(k, operand.toArray(ValueLayout.JAVA_BYTE));
                if (run != null && run.family != next.family) {
                    throw new IllegalArgumentException("operands of families " + KillSpace.FAMILIES.get(run.family)
                            + " and " + KillSpace.FAMILIES.get(next.family) + " on one key: " + KillSpace.describe(k));
                }
                run = run == null ? next : new Run(run.family, run.count + next.count,
                        run.multiplier * next.multiplier, run.sum * next.multiplier + next.sum);
            }
            if (run == null) {
                throw new IllegalArgumentException("no operands for " + KillSpace.describe(k));
            }
            return run;
        }

        private static Run decode(int[] k, byte[] b) {
            if (b.length != OPERAND_LENGTH || b[0] != OPERAND) {
                throw new IllegalArgumentException("an operand of " + b.length + " bytes that no merge of this "
                        + "workload wrote, on " + KillSpace.describe(k));
            }
            ByteBuffer buffer = ByteBuffer.wrap(b, 1, OPERAND_LENGTH - 1);
            int family = buffer.get();
            int thread = buffer.get();
            int index = buffer.getShort();
            int count = buffer.getInt();
            if (thread != k[0] || index != k[1] || family < 0 || family >= KillSpace.FAMILIES.size() || count < 1) {
                throw new IllegalArgumentException("an operand naming thread " + thread + ", key " + index
                        + ", family " + family + ", count " + count + " found on " + KillSpace.describe(k));
            }
            return new Run(family, count, buffer.getLong(), buffer.getLong());
        }

        byte[] encode(int[] k) {
            byte[] b = new byte[OPERAND_LENGTH];
            ByteBuffer.wrap(b).put(OPERAND).put((byte) family).put((byte) k[0]).putShort((short) k[1]).putInt(count)
                    .putLong(multiplier).putLong(sum);
            return b;
        }
    }
}
