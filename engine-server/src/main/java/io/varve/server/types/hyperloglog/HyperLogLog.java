package io.varve.server.types.hyperloglog;

import java.util.Arrays;

import static io.varve.server.types.hyperloglog.HyperLogLogLayout.*;

/**
 * One HyperLogLog string being read or changed, in Redis's representation ({@link HyperLogLogLayout}). Edits
 * follow redis-server's own steps — where a sparse opcode is split, when neighbouring VAL opcodes merge, when
 * the sketch turns dense — because the resulting bytes are visible to clients (GET, DUMP-free copies to
 * redis-server) and must be the ones redis-server would have produced.
 *
 * <p>Not thread-safe: the caller holds the key's lock for the life of the instance.
 */
public final class HyperLogLog {

    /** redis-server's default {@code hll-sparse-max-bytes}: a sparse HLL that would grow past it turns dense. */
    public static final int DEFAULT_SPARSE_MAX_BYTES = 3000;

    private byte[] bytes;
    private int length;

    private HyperLogLog(byte[] bytes, int length) {
        this.bytes = bytes;
        this.length = length;
    }

    /** A new, empty, sparse HLL (one XZERO opcode covering every register; cached cardinality 0). */
    public static HyperLogLog empty() {
        byte[] b = new byte[HEADER_SIZE + 2];
        b[0] = 'H';
        b[1] = 'Y';
        b[2] = 'L';
        b[3] = 'L';
        b[ENCODING_OFFSET] = SPARSE;
        putXZero(b, HEADER_SIZE, XZERO_MAX_LEN);
        return new HyperLogLog(b, b.length);
    }

    /**
     * The HLL a string value holds (copied: the value is not changed).
     *
     * @throws NotAHyperLogLogException when the header is not an HLL's, or a dense one has the wrong length
     */
    public static HyperLogLog of(byte[] value) {
        if (value.length < HEADER_SIZE || value[0] != 'H' || value[1] != 'Y' || value[2] != 'L' || value[3] != 'L') {
            throw new NotAHyperLogLogException();
        }
        int encoding = value[ENCODING_OFFSET] & 0xFF;
        if (encoding > SPARSE || (encoding == DENSE && value.length != DENSE_SIZE)) {
            throw new NotAHyperLogLogException();
        }
        return new HyperLogLog(value.clone(), value.length);
    }

    /** The string to store. */
    public byte[] toBytes() {
        return Arrays.copyOf(bytes, length);
    }

    public boolean isDense() {
        return bytes[ENCODING_OFFSET] == DENSE;
    }

    /** The cached cardinality, or -1 when it is stale. */
    public long cachedCardinality() {
        if ((bytes[CARDINALITY_STALE_BYTE] & 0x80) != 0) {
            return -1;
        }
        long card = 0;
        for (int i = 7; i >= 0; i--) {
            card = (card << 8) | (bytes[CARDINALITY_OFFSET + i] & 0xFF);
        }
        return card;
    }

    public void cacheCardinality(long card) {
        for (int i = 0; i < 8; i++) {
            bytes[CARDINALITY_OFFSET + i] = (byte) (card >>> (8 * i));
        }
    }

    public void invalidateCache() {
        bytes[CARDINALITY_STALE_BYTE] |= (byte) 0x80;
    }

    /**
     * Counts {@code element}: returns whether a register grew (Redis's PFADD "1").
     *
     * @throws CorruptHyperLogLogException when a sparse HLL's opcodes do not cover the registers
     */
    public boolean add(byte[] element, int sparseMaxBytes) {
        long hash = MurmurHash64A.hash(element, MurmurHash64A.REDIS_SEED);
        int index = (int) (hash & INDEX_MASK);
        long rest = (hash >>> P) | (1L << Q);
        int count = Long.numberOfTrailingZeros(rest) + 1;
        return raise(index, count, sparseMaxBytes);
    }

    /** Raises register {@code index} to {@code count} if it is lower; returns whether it changed. */
    public boolean raise(int index, int count, int sparseMaxBytes) {
        if (isDense()) {
            return raiseDense(index, count);
        }
        return raiseSparse(index, count, sparseMaxBytes);
    }

    private boolean raiseDense(int index, int count) {
        if (denseRegister(bytes, HEADER_SIZE, index) >= count) {
            return false;
        }
        setDenseRegister(bytes, HEADER_SIZE, index, count);
        return true;
    }

    private int at(int i) {
        return i < length ? bytes[i] & 0xFF : 0;
    }

    private boolean raiseSparse(int index, int count, int sparseMaxBytes) {
        if (count > VAL_MAX_VALUE) {
            return promoteAndRaise(index, count);
        }
        // Find the opcode covering the register, and the one before it (where merging starts).
        int p = HEADER_SIZE;
        int prev = -1;
        int first = 0;
        int span = 0;
        while (p < length) {
            int op = at(p);
            int opLength = 1;
            if (isZero(op)) {
                span = zeroLength(op);
            } else if (isVal(op)) {
                span = valLength(op);
            } else {
                span = xzeroLength(op, at(p + 1));
                opLength = 2;
            }
            if (index <= first + span - 1) {
                break;
            }
            prev = p;
            p += opLength;
            first += span;
        }
        if (span == 0 || p >= length) {
            throw new CorruptHyperLogLogException();
        }
        int op = at(p);
        boolean zero = isZero(op);
        boolean xzero = isXZero(op);
        int runLength = zero ? zeroLength(op) : xzero ? xzeroLength(op, at(p + 1)) : valLength(op);
        int next = xzero ? p + 2 : p + 1;

        if (!zero && !xzero) {
            if (valValue(op) >= count) {
                return false;
            }
            if (runLength == 1) {
                bytes[p] = val(count, 1);
                mergeNeighbours(prev);
                return true;
            }
        }
        if (zero && runLength == 1) {
            bytes[p] = val(count, 1);
            mergeNeighbours(prev);
            return true;
        }

        // Split the opcode into up to three: what precedes the register, the register, what follows it.
        byte[] seq = new byte[5];
        int n = 0;
        int last = first + span - 1;
        if (zero || xzero) {
            if (index != first) {
                n = putZeroRun(seq, n, index - first);
            }
            seq[n++] = val(count, 1);
            if (index != last) {
                n = putZeroRun(seq, n, last - index);
            }
        } else {
            int current = valValue(op);
            if (index != first) {
                seq[n++] = val(current, index - first);
            }
            seq[n++] = val(count, 1);
            if (index != last) {
                seq[n++] = val(current, last - index);
            }
        }
        int oldLength = xzero ? 2 : 1;
        int delta = n - oldLength;
        if (delta > 0 && length + delta > sparseMaxBytes) {
            return promoteAndRaise(index, count);
        }
        ensureCapacity(length + delta);
        if (delta != 0 && next < length) {
            System.arraycopy(bytes, next, bytes, next + delta, length - next);
        }
        length += delta;
        System.arraycopy(seq, 0, bytes, p, n);
        mergeNeighbours(prev);
        return true;
    }

    private static int putZeroRun(byte[] seq, int n, int run) {
        if (run > ZERO_MAX_LEN) {
            putXZero(seq, n, run);
            return n + 2;
        }
        seq[n] = zero(run);
        return n + 1;
    }

    /** Redis's step after an edit: up to five opcodes from {@code prev} on, equal adjacent VALs become one. */
    private void mergeNeighbours(int prev) {
        int p = prev >= 0 ? prev : HEADER_SIZE;
        int scan = 5;
        while (p < length && scan-- > 0) {
            int op = at(p);
            if (isXZero(op)) {
                p += 2;
                continue;
            }
            if (isZero(op)) {
                p++;
                continue;
            }
            if (p + 1 < length && isVal(at(p + 1))) {
                int v1 = valValue(op);
                int v2 = valValue(at(p + 1));
                if (v1 == v2) {
                    int merged = valLength(op) + valLength(at(p + 1));
                    if (merged <= VAL_MAX_LEN) {
                        bytes[p + 1] = val(v1, merged);
                        System.arraycopy(bytes, p + 1, bytes, p, length - p - 1);
                        length--;
                        continue;
                    }
                }
            }
            p++;
        }
    }

    private boolean promoteAndRaise(int index, int count) {
        toDense();
        return raiseDense(index, count);
    }

    private void ensureCapacity(int needed) {
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length + bytes.length / 2));
        }
    }

    /**
     * Turns a sparse HLL dense (no change when it is dense already), keeping the header's cached cardinality.
     *
     * @return whether it changed
     * @throws CorruptHyperLogLogException when the sparse opcodes do not cover the registers exactly
     */
    public boolean toDense() {
        if (isDense()) {
            return false;
        }
        byte[] dense = new byte[DENSE_SIZE];
        System.arraycopy(bytes, 0, dense, 0, HEADER_SIZE);
        dense[ENCODING_OFFSET] = DENSE;
        forEachRun((first, run, value) -> {
            for (int i = 0; i < run; i++) {
                setDenseRegister(dense, HEADER_SIZE, first + i, value);
            }
        });
        bytes = dense;
        length = dense.length;
        return true;
    }

    /** Raises each of {@code max}'s registers to this HLL's where this one's is higher. */
    public void mergeInto(byte[] max) {
        if (isDense()) {
            for (int i = 0; i < REGISTERS; i++) {
                int v = denseRegister(bytes, HEADER_SIZE, i);
                if (v > max[i]) {
                    max[i] = (byte) v;
                }
            }
            return;
        }
        forEachRun((first, run, value) -> {
            for (int i = 0; i < run; i++) {
                if (value > max[first + i]) {
                    max[first + i] = (byte) value;
                }
            }
        });
    }

    /** The register values, one per byte (PFDEBUG GETREG, merges). */
    public byte[] registers() {
        byte[] max = new byte[REGISTERS];
        mergeInto(max);
        return max;
    }

    /** The estimated cardinality of the registers (ignoring the cache). */
    public long estimate() {
        int[] histogram = new int[64];
        if (isDense()) {
            for (int i = 0; i < REGISTERS; i++) {
                histogram[denseRegister(bytes, HEADER_SIZE, i)]++;
            }
        } else {
            int covered = 0;
            for (int p = HEADER_SIZE; p < length; ) {
                int op = at(p);
                if (isZero(op)) {
                    covered += zeroLength(op);
                    histogram[0] += zeroLength(op);
                    p++;
                } else if (isXZero(op)) {
                    int run = xzeroLength(op, at(p + 1));
                    covered += run;
                    histogram[0] += run;
                    p += 2;
                } else {
                    covered += valLength(op);
                    histogram[valValue(op)] += valLength(op);
                    p++;
                }
            }
            if (covered != REGISTERS) {
                throw new CorruptHyperLogLogException();
            }
        }
        return HyperLogLogEstimator.cardinality(histogram);
    }

    /** The estimated cardinality of registers held one per byte (a multi-key PFCOUNT's merge). */
    public static long estimate(byte[] registers) {
        int[] histogram = new int[64];
        for (byte r : registers) {
            histogram[r]++;
        }
        return HyperLogLogEstimator.cardinality(histogram);
    }

    /** PFDEBUG DECODE's text: {@code z:len}, {@code Z:len}, {@code v:value,len} per sparse opcode. */
    public String decodeSparse() {
        StringBuilder out = new StringBuilder();
        for (int p = HEADER_SIZE; p < length; ) {
            int op = at(p);
            if (out.length() > 0) {
                out.append(' ');
            }
            if (isZero(op)) {
                out.append("z:").append(zeroLength(op));
                p++;
            } else if (isXZero(op)) {
                out.append("Z:").append(xzeroLength(op, at(p + 1)));
                p += 2;
            } else {
                out.append("v:").append(valValue(op)).append(',').append(valLength(op));
                p++;
            }
        }
        return out.toString();
    }

    private interface RunVisitor {
        void run(int first, int length, int value);
    }

    /** Visits the non-zero runs of a sparse HLL; fails if its opcodes do not cover the registers exactly. */
    private void forEachRun(RunVisitor visitor) {
        int index = 0;
        for (int p = HEADER_SIZE; p < length; ) {
            int op = at(p);
            if (isZero(op)) {
                index += zeroLength(op);
                p++;
            } else if (isXZero(op)) {
                index += xzeroLength(op, at(p + 1));
                p += 2;
            } else {
                int run = valLength(op);
                if (index + run > REGISTERS) {
                    break;
                }
                visitor.run(index, run, valValue(op));
                index += run;
                p++;
            }
        }
        if (index != REGISTERS) {
            throw new CorruptHyperLogLogException();
        }
    }
}
