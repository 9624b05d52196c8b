package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The byte layout, checked against values computed here from the written specification, not the code. */
class WalFormatTest {

    /** The spec's mask, spelled out independently of {@link WalFormat#mask}. */
    private static int specMask(int crc) {
        return ((crc >>> 15) | (crc << 17)) + 0xa282ead8;
    }

    @Test
    void usesCrc32cAndLevelDbMasking() {
        CRC32C crc = new CRC32C();
        crc.update("123456789".getBytes(StandardCharsets.US_ASCII));
        assertEquals(0xE3069283L, crc.getValue(), "CRC32C check value");
        assertEquals(0xa282ead8, WalFormat.mask(0));
        Random random = new Random(1);
        for (int i = 0; i < 1000; i++) {
            int value = random.nextInt();
            assertEquals(specMask(value), WalFormat.mask(value));
            assertEquals(value, WalFormat.unmask(WalFormat.mask(value)));
        }
    }

    @Test
    void fullRecordMatchesTheDocumentedBytes() throws IOException {
        // The high bits of the file number are dropped: records carry its low 32 bits.
        byte[] log = WalTestSupport.encode(List.of("abc".getBytes(StandardCharsets.US_ASCII)), 0x5_0000_0007L)
                .bytes();

        CRC32C crc = new CRC32C();
        crc.update(new byte[] {1, 7, 0, 0, 0, 'a', 'b', 'c'});
        ByteBuffer expected = ByteBuffer.allocate(14).order(ByteOrder.LITTLE_ENDIAN);
        expected.putInt(specMask((int) crc.getValue())).putShort((short) 3).put((byte) 1).putInt(7);
        expected.put(new byte[] {'a', 'b', 'c'});
        assertArrayEquals(expected.array(), log);
    }

    @Test
    void largePayloadIsFragmentedAlongBlocksWithZeroTrailer() throws IOException {
        int leave = 4;
        long start = WalFormat.BLOCK_SIZE - leave - WalFormat.HEADER_SIZE; // a first record leaving 4 bytes
        byte[] first = new byte[(int) start - WalFormat.HEADER_SIZE];
        byte[] big = WalTestSupport.payload(2 * WalFormat.MAX_FRAGMENT_LENGTH + 5, 9);
        byte[] log = WalTestSupport.encode(List.of(first, new byte[0], big), 3).bytes();

        // Record 2 (empty, FULL) fills the block up to 4 bytes before its end; those 4 are the trailer.
        assertEquals(WalFormat.FULL_TYPE, log[(int) start + WalFormat.TYPE_OFFSET]);
        for (int i = WalFormat.BLOCK_SIZE - leave; i < WalFormat.BLOCK_SIZE; i++) {
            assertEquals(0, log[i], "trailer byte " + i);
        }
        int[] expectedTypes = {WalFormat.FIRST_TYPE, WalFormat.MIDDLE_TYPE, WalFormat.LAST_TYPE};
        int[] expectedLengths = {WalFormat.MAX_FRAGMENT_LENGTH, WalFormat.MAX_FRAGMENT_LENGTH, 5};
        ByteBuffer view = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 3; i++) {
            int at = (i + 1) * WalFormat.BLOCK_SIZE;
            assertEquals(expectedLengths[i], Short.toUnsignedInt(view.getShort(at + 4)), "fragment " + i);
            assertEquals(expectedTypes[i], log[at + 6], "fragment " + i);
            assertEquals(3, view.getInt(at + 7), "log number of fragment " + i);
        }
        assertEquals(3L * WalFormat.BLOCK_SIZE + WalFormat.HEADER_SIZE + 5, log.length);
    }

    @Test
    void encodedLengthCountsHeadersAndPadding() {
        int h = WalFormat.HEADER_SIZE;
        int b = WalFormat.BLOCK_SIZE;
        assertEquals(h, WalFormat.encodedLength(0, 0));
        assertEquals(b, WalFormat.encodedLength(0, b - h));
        assertEquals(b + h + 1, WalFormat.encodedLength(0, b - h + 1));
        assertEquals(5 + h, WalFormat.encodedLength(b - 5, 0), "a 5-byte trailer is skipped first");
        assertEquals(h + h + 3, WalFormat.encodedLength(b - h, 3), "an empty FIRST fills the last header slot");
        assertEquals(h, WalFormat.encodedLength(b - h, 0), "an empty FULL fits exactly");
        assertEquals(82_033 - 32_000, WalFormat.encodedLength(32_000, 50_000), "the example in docs/formats.md");
    }

    /** The WAL section of docs/formats.md lists every constant in a table; it must agree with the class. */
    @Test
    void documentedConstantsMatchTheClass() throws Exception {
        io.varve.core.DocumentedConstants.assertSectionMatches("Write-ahead log", WalFormat.class);
    }
}
