package io.varve.server.types.hyperloglog;

/**
 * Redis's HyperLogLog string, byte by byte (docs/server.md, "HyperLogLog"). Everything that knows an offset or
 * an opcode bit is here.
 *
 * <pre>
 * header (16 bytes):  "HYLL" | encoding (0 dense, 1 sparse) | 3 unused | cached cardinality, 8 bytes little-endian
 *                     (the top bit of the last byte set: the cache is stale)
 * dense  (12288 bytes): 16384 registers of 6 bits, register i at bit 6*i, least significant bits first
 * sparse (variable):  opcodes covering the 16384 registers in order
 *                     00xxxxxx           ZERO:  xxxxxx+1 registers (1..64) at 0
 *                     01xxxxxx yyyyyyyy  XZERO: xxxxxxyyyyyyyy+1 registers (1..16384) at 0
 *                     1vvvvvxx           VAL:   xx+1 registers (1..4) at vvvvv+1 (1..32)
 * </pre>
 */
final class HyperLogLogLayout {

    static final int P = 14;
    static final int Q = 64 - P;
    static final int REGISTERS = 1 << P;
    static final int INDEX_MASK = REGISTERS - 1;
    static final int REGISTER_BITS = 6;
    static final int REGISTER_MAX = (1 << REGISTER_BITS) - 1;

    static final int HEADER_SIZE = 16;
    static final int ENCODING_OFFSET = 4;
    static final int CARDINALITY_OFFSET = 8;
    /** The byte whose top bit marks the cached cardinality stale. */
    static final int CARDINALITY_STALE_BYTE = CARDINALITY_OFFSET + 7;
    static final int DENSE = 0;
    static final int SPARSE = 1;
    static final int DENSE_SIZE = HEADER_SIZE + (REGISTERS * REGISTER_BITS + 7) / 8;

    static final int XZERO_BIT = 0x40;
    static final int VAL_BIT = 0x80;
    static final int VAL_MAX_VALUE = 32;
    static final int VAL_MAX_LEN = 4;
    static final int ZERO_MAX_LEN = 64;
    static final int XZERO_MAX_LEN = 16384;

    private HyperLogLogLayout() {
    }

    static boolean isZero(int opcode) {
        return (opcode & 0xC0) == 0;
    }

    static boolean isXZero(int opcode) {
        return (opcode & 0xC0) == XZERO_BIT;
    }

    static boolean isVal(int opcode) {
        return (opcode & VAL_BIT) != 0;
    }

    static int zeroLength(int opcode) {
        return (opcode & 0x3F) + 1;
    }

    static int xzeroLength(int opcode, int second) {
        return (((opcode & 0x3F) << 8) | second) + 1;
    }

    static int valValue(int opcode) {
        return ((opcode >> 2) & 0x1F) + 1;
    }

    static int valLength(int opcode) {
        return (opcode & 0x3) + 1;
    }

    static byte val(int value, int length) {
        return (byte) (((value - 1) << 2 | (length - 1)) | VAL_BIT);
    }

    static byte zero(int length) {
        return (byte) (length - 1);
    }

    /** The two bytes of an XZERO opcode for {@code length} registers. */
    static void putXZero(byte[] into, int at, int length) {
        int l = length - 1;
        into[at] = (byte) ((l >> 8) | XZERO_BIT);
        into[at + 1] = (byte) (l & 0xFF);
    }

    /** Register {@code index} of a dense HLL whose registers start at {@code base}. */
    static int denseRegister(byte[] bytes, int base, int index) {
        int bit = index * REGISTER_BITS;
        int at = base + bit / 8;
        int shift = bit & 7;
        int b0 = bytes[at] & 0xFF;
        int b1 = at + 1 < bytes.length ? bytes[at + 1] & 0xFF : 0;
        return ((b0 >>> shift) | (b1 << (8 - shift))) & REGISTER_MAX;
    }

    static void setDenseRegister(byte[] bytes, int base, int index, int value) {
        int bit = index * REGISTER_BITS;
        int at = base + bit / 8;
        int shift = bit & 7;
        bytes[at] = (byte) ((bytes[at] & ~(REGISTER_MAX << shift)) | (value << shift));
        if (at + 1 < bytes.length) {
            int spill = 8 - shift;
            bytes[at + 1] = (byte) ((bytes[at + 1] & ~(REGISTER_MAX >>> spill)) | (value >>> spill));
        }
    }
}
