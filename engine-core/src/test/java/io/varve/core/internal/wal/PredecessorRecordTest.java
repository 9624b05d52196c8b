package io.varve.core.internal.wal;

import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.batch.WriteBatchBuilder;
import io.varve.core.internal.batch.WriteBatchFormat;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PredecessorRecordTest {

    @Test
    void encodesTheDocumentedBytes() {
        byte[] payload = PredecessorRecord.encode(0x0102_0304_0506L, 0x1122_3344L);
        byte[] expected = new byte[28];
        // bytes 0..11 zero; log number and length little-endian at 12 and 20
        byte[] number = {0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0, 0};
        byte[] length = {0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0};
        System.arraycopy(number, 0, expected, 12, 8);
        System.arraycopy(length, 0, expected, 20, 8);
        assertArrayEquals(expected, payload);
        assertEquals(new PredecessorRecord.Link(0x0102_0304_0506L, 0x1122_3344L), PredecessorRecord.decode(payload));
    }

    @Test
    void aWriteBatchIsNeverTakenForOne() {
        WriteBatchBuilder builder = new WriteBatchBuilder();
        // A batch whose encoding happens to be 28 bytes long: its non-zero count tells it apart.
        builder.add(ValueKind.PUT, 0, MemorySegment.ofArray(new byte[6]), MemorySegment.ofArray(new byte[6]));
        byte[] batch = builder.encode();
        assertEquals(PredecessorRecord.SIZE, batch.length);
        assertNull(PredecessorRecord.decode(batch));
        assertNull(PredecessorRecord.decode(Arrays.copyOf(PredecessorRecord.encode(1, 2), 29)));
        assertEquals(WriteBatchFormat.COUNT_OFFSET, PredecessorRecord.COUNT_OFFSET);
    }

    @Test
    void rejectsNegativeFields() {
        assertThrows(IllegalArgumentException.class, () -> PredecessorRecord.encode(-1, 0));
        byte[] payload = PredecessorRecord.encode(1, 2);
        payload[27] = (byte) 0x80;
        assertNull(PredecessorRecord.decode(payload), "a negative length is not a predecessor record");
    }

    @Test
    void documentedConstantsMatchTheClass() throws Exception {
        io.varve.core.DocumentedConstants.assertSectionMatches("Log predecessor record", PredecessorRecord.class);
    }
}
