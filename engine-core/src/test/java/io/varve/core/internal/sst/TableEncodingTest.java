package io.varve.core.internal.sst;

import io.varve.base.Checksums;
import io.varve.base.Varint;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The low-level encodings of the table format: varints and masked CRC32C. */
class TableEncodingTest {

    private static MemorySegment bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return MemorySegment.ofArray(b);
    }

    @Property(tries = 500)
    void longVarintsRoundTrip(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long value) {
        byte[] buffer = new byte[Varint.MAX_LONG_LENGTH + 2];
        int end = Varint.write(buffer, 1, value);
        assertEquals(Varint.encodedLength(value), end - 1);
        assertEquals(value, Varint.decodeLong(MemorySegment.ofArray(buffer), 1, end));
        assertEquals(Varint.MALFORMED, Varint.decodeLong(MemorySegment.ofArray(buffer), 1, end - 1),
                "cut short by the limit");
    }

    @Property(tries = 500)
    void intVarintsRoundTrip(@ForAll @LongRange(min = 0, max = Integer.MAX_VALUE) long value) {
        byte[] buffer = new byte[Varint.MAX_INT_LENGTH];
        int end = Varint.write(buffer, 0, value);
        long packed = Varint.decodeInt(MemorySegment.ofArray(buffer), 0, end);
        assertEquals(value, Varint.value(packed));
        assertEquals(end, Varint.length(packed));
    }

    @Test
    void knownEncodings() {
        byte[] buffer = new byte[10];
        assertEquals(1, Varint.write(buffer, 0, 0));
        assertEquals(0, buffer[0]);
        assertEquals(2, Varint.write(buffer, 0, 300));
        assertArrayEquals(new byte[] {(byte) 0xAC, 0x02}, java.util.Arrays.copyOf(buffer, 2));
        assertEquals(10, Varint.encodedLength(-1L));
        assertEquals(5, Varint.encodedLength(Integer.MAX_VALUE));
    }

    @Test
    void malformedIntVarintsAreReportedNotThrown() {
        assertEquals(Varint.MALFORMED, Varint.decodeInt(bytes(0x80), 0, 1), "truncated");
        assertEquals(Varint.MALFORMED, Varint.decodeInt(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 0, 6),
                "longer than five bytes");
        assertEquals(Varint.MALFORMED, Varint.decodeInt(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x0F), 0, 5),
                "above Integer.MAX_VALUE");
        assertEquals(Varint.MALFORMED, Varint.decodeInt(bytes(0x05), 0, 0), "empty range");
        assertEquals(Integer.MAX_VALUE,
                Varint.value(Varint.decodeInt(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0x07), 0, 5)));
    }

    @Test
    void malformedLongVarintsAreReportedNotThrown() {
        assertEquals(Varint.MALFORMED, Varint.decodeLong(bytes(0x80, 0x00), 0, 2), "not the shortest form");
        assertEquals(Varint.MALFORMED, Varint.decodeLong(
                bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 0, 10), "negative");
        assertEquals(0, Varint.decodeLong(bytes(0x00), 0, 1));
    }

    /** Unsigned byte order, prefix first, at any offset and across the 8-byte word boundaries. */
    @Property(tries = 1000)
    void keyComparisonMatchesUnsignedArrayOrder(@ForAll("nearlyEqualKeys") byte[] a, @ForAll("nearlyEqualKeys") byte[] b,
                                                @ForAll @IntRange(max = 9) int padA, @ForAll @IntRange(max = 9) int padB) {
        byte[] paddedA = new byte[padA + a.length + 3];
        System.arraycopy(a, 0, paddedA, padA, a.length);
        java.util.Arrays.fill(paddedA, padA + a.length, paddedA.length, (byte) 0x5A);
        byte[] paddedB = new byte[padB + b.length];
        System.arraycopy(b, 0, paddedB, padB, b.length);
        int actual = InternalKeys.compareBytes(MemorySegment.ofArray(paddedA), padA, padA + a.length,
                MemorySegment.ofArray(paddedB), padB, padB + b.length);
        assertEquals(Integer.signum(java.util.Arrays.compareUnsigned(a, b)), Integer.signum(actual));
    }

    @Provide
    Arbitrary<byte[]> nearlyEqualKeys() {
        // Two-letter alphabet with the extremes: long shared prefixes, differences at every position.
        return Arbitraries.of((byte) 0x00, (byte) 0x7F, (byte) 0x80, (byte) 0xFF).list().ofMaxSize(20)
                .map(list -> {
                    byte[] key = new byte[list.size()];
                    for (int i = 0; i < key.length; i++) {
                        key[i] = list.get(i);
                    }
                    return key;
                });
    }

    @Test
    void crc32cMatchesTheStandardCheckValue() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xE3069283, Checksums.crc32c(check, 0, check.length));
        assertEquals(0xE3069283, Checksums.crc32c(MemorySegment.ofArray(check), 0, check.length));
    }

    @Property(tries = 200)
    void maskingIsReversible(@ForAll int crc) {
        assertEquals(crc, Checksums.unmask(Checksums.mask(crc)));
    }

    /** The worked example of docs/formats.md, section "Sorted table", part 4, byte for byte. */
    @Test
    void dataBlockMatchesTheDocumentedExample() {
        BlockBuilder block = new BlockBuilder(16, 64);
        byte[] apple = new byte[13];
        System.arraycopy("apple".getBytes(StandardCharsets.US_ASCII), 0, apple, 0, 5);
        InternalKeys.writeTrailer(apple, 5, 5L << 8 | 1);
        byte[] apricot = new byte[15];
        System.arraycopy("apricot".getBytes(StandardCharsets.US_ASCII), 0, apricot, 0, 7);
        InternalKeys.writeTrailer(apricot, 7, 3L << 8 | 1);
        block.add(apple, apple.length, "red".getBytes(StandardCharsets.US_ASCII), 3);
        block.add(apricot, apricot.length, "x".getBytes(StandardCharsets.US_ASCII), 1);
        String documented = "00 0D 03 61 70 70 6C 65 01 05 00 00 00 00 00 00 72 65 64 "
                + "02 0D 01 72 69 63 6F 74 01 03 00 00 00 00 00 00 78 "
                + "00 00 00 00 01 00 00 00";
        assertEquals(documented,
                java.util.HexFormat.ofDelimiter(" ").withUpperCase().formatHex(block.finish().toArray()));
    }

    @Test
    void magicIsTheAsciiBytesVarvesstInFileOrder() {
        byte[] magic = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(TableFormat.MAGIC).array();
        assertEquals("VARVESST", new String(magic, StandardCharsets.US_ASCII));
    }

    /** Section "Sorted table" of docs/formats.md lists every int constant of the format class. */
    @Test
    void documentedConstantsMatchTheClass() throws Exception {
        io.varve.core.DocumentedConstants.assertSectionMatches("Sorted table", TableFormat.class);
    }

    @Test
    void maskMatchesTheDocumentedFormula() {
        int crc = 0x12345678;
        assertEquals(((crc >>> 15) | (crc << 17)) + 0xa282ead8, Checksums.mask(crc));
    }
}
