package io.varve.core.merge;

import io.varve.core.internal.keys.Keys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

/** The built-in merge operators. */
public final class MergeOperators {

    private MergeOperators() {
    }

    /**
     * Adds 64-bit two's-complement integers stored in 8 bytes of the given order; wraps on overflow (as
     * RocksDB's {@code uint64add}, which is little-endian). A missing value counts as 0. A stored value or an
     * operand that is not exactly 8 bytes fails the merge with {@link IllegalArgumentException}. The operator
     * is a {@link LongMergeOperator}, so reads fold its operands without copying them.
     */
    public static MergeOperator int64Add(ByteOrder order) {
        return new Int64Add(Objects.requireNonNull(order, "order"));
    }

    private static final class Int64Add implements LongMergeOperator {

        private final ValueLayout.OfLong layout;
        private final String name;

        Int64Add(ByteOrder order) {
            this.layout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order);
            this.name = order == ByteOrder.LITTLE_ENDIAN ? "int64add-le" : "int64add-be";
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
            long sum = existing == null ? 0 : read(existing, "stored value");
            for (MemorySegment operand : operands) {
                sum += read(operand, "operand");
            }
            return encode(sum);
        }

        @Override
        public byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
            long sum = 0;
            for (MemorySegment operand : operands) {
                sum += read(operand, "operand");
            }
            return encode(sum);
        }

        @Override
        public long identity() {
            return 0;
        }

        @Override
        public long decode(MemorySegment bytes) {
            return read(bytes, "value or operand");
        }

        @Override
        public long combine(long accumulated, long next) {
            return accumulated + next;
        }

        @Override
        public byte[] encode(long value) {
            byte[] out = new byte[Long.BYTES];
            MemorySegment.ofArray(out).set(layout, 0, value);
            return out;
        }

        private long read(MemorySegment bytes, String what) {
            if (bytes.byteSize() != Long.BYTES) {
                throw new IllegalArgumentException(name + ": " + what + " is " + bytes.byteSize()
                        + " bytes, expected 8");
            }
            return bytes.get(layout, 0);
        }
    }

    /** Encodes {@code value} as an operand (or value) for {@link #int64Add} with the same byte order. */
    public static byte[] int64(long value, ByteOrder order) {
        byte[] out = new byte[Long.BYTES];
        MemorySegment.ofArray(out).set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(order), 0, value);
        return out;
    }

    /**
     * Appends each operand to the value, separated by {@code delimiter} (RocksDB's {@code stringappend}); a
     * missing value starts from the first operand, with no leading delimiter. An empty delimiter concatenates.
     */
    public static MergeOperator append(byte[] delimiter) {
        byte[] separator = Objects.requireNonNull(delimiter, "delimiter").clone();
        return new MergeOperator() {
            @Override
            public String name() {
                return "append";
            }

            @Override
            public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
                return join(existing, operands);
            }

            @Override
            public byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
                return join(null, operands);
            }

            private byte[] join(MemorySegment first, List<MemorySegment> rest) {
                long size = first == null ? -separator.length : first.byteSize();
                for (MemorySegment operand : rest) {
                    size += separator.length + operand.byteSize();
                }
                if (size > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("append: merged value of " + size + " bytes is too large");
                }
                byte[] out = new byte[(int) size];
                MemorySegment target = MemorySegment.ofArray(out);
                long at = 0;
                boolean started = false;
                if (first != null) {
                    MemorySegment.copy(first, 0, target, 0, first.byteSize());
                    at = first.byteSize();
                    started = true;
                }
                for (MemorySegment operand : rest) {
                    if (started) {
                        MemorySegment.copy(MemorySegment.ofArray(separator), 0, target, at, separator.length);
                        at += separator.length;
                    }
                    MemorySegment.copy(operand, 0, target, at, operand.byteSize());
                    at += operand.byteSize();
                    started = true;
                }
                return out;
            }
        };
    }

    /** Keeps the greatest of the value and the operands in unsigned byte order (RocksDB's {@code max}). */
    public static MergeOperator max() {
        return new MergeOperator() {
            @Override
            public String name() {
                return "max";
            }

            @Override
            public byte[] fullMerge(MemorySegment key, MemorySegment existing, List<MemorySegment> operands) {
                MemorySegment best = existing;
                for (MemorySegment operand : operands) {
                    if (best == null || Keys.compare(operand, best) > 0) {
                        best = operand;
                    }
                }
                return best.toArray(ValueLayout.JAVA_BYTE);
            }

            @Override
            public byte[] partialMerge(MemorySegment key, List<MemorySegment> operands) {
                return fullMerge(key, null, operands);
            }
        };
    }
}
