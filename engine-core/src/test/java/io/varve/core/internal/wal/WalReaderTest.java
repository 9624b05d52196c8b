package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-built logs whose records all carry valid checksums but break the fragment rules or the header's
 * limits: each must be told apart precisely, as corruption (not truncation) at the offending header.
 */
class WalReaderTest {

    private static final int LOG = 21;

    /** One physical record with a valid checksum, whatever its type. */
    private static byte[] record(int type, int logNumber, byte[] payload) {
        byte[] bytes = new byte[WalFormat.HEADER_SIZE + payload.length];
        System.arraycopy(payload, 0, bytes, WalFormat.HEADER_SIZE, payload.length);
        WalFormat.encodeHeader(bytes, 0, type, logNumber, payload.length);
        return bytes;
    }

    private static byte[] log(byte[]... records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] r : records) {
            out.writeBytes(r);
        }
        return out.toByteArray();
    }

    private static final byte[] A = {'a'};
    private static final byte[] B = {'b', 'b'};

    private static void assertCorruptionAt(byte[] log, long offset, int recordsBefore, String detail)
            throws IOException {
        Outcome outcome = WalTestSupport.readAll(log, LOG);
        CorruptionException error = outcome.error();
        assertNotNull(error, () -> "expected corruption, read ended " + outcome.end());
        assertFalse(error instanceof TruncatedRecordException, error::toString);
        assertEquals(offset, error.offset(), error::toString);
        assertEquals(recordsBefore, outcome.records().size());
        assertTrue(error.getMessage().contains(detail), error.getMessage());
    }

    @Test
    void fragmentsAreReassembled() throws IOException {
        byte[] log = log(record(1, LOG, A), record(2, LOG, A), record(3, LOG, B), record(4, LOG, A),
                record(2, LOG, new byte[0]), record(4, LOG, B));
        Outcome outcome = WalTestSupport.readAll(log, LOG);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(List.of(A, new byte[] {'a', 'b', 'b', 'a'}, B), outcome.records(), 3);
    }

    @Test
    void middleWithoutFirst() throws IOException {
        assertCorruptionAt(log(record(1, LOG, A), record(3, LOG, A), record(4, LOG, A)), 12, 1, "MIDDLE");
    }

    @Test
    void lastWithoutFirst() throws IOException {
        assertCorruptionAt(log(record(1, LOG, A), record(4, LOG, A)), 12, 1, "LAST");
    }

    @Test
    void firstInsideAChain() throws IOException {
        assertCorruptionAt(log(record(2, LOG, A), record(2, LOG, A), record(4, LOG, A)), 12, 0, "FIRST");
    }

    @Test
    void fullInsideAChain() throws IOException {
        assertCorruptionAt(log(record(2, LOG, A), record(3, LOG, A), record(1, LOG, A)), 24, 0, "FULL");
    }

    @Test
    void unknownTypeIsCorruptionEvenWhereTheFileEndsEarly() throws IOException {
        byte[] bad = record(1, LOG, B);
        bad[WalFormat.TYPE_OFFSET] = 9;
        assertCorruptionAt(log(record(1, LOG, A), bad), 12, 1, "type");
        // Cut inside the payload: a torn write never changes the header, so this is still damage.
        byte[] cut = Arrays.copyOf(log(record(1, LOG, A), bad), 12 + WalFormat.HEADER_SIZE + 1);
        assertCorruptionAt(cut, 12, 1, "type");
    }

    @Test
    void lengthRunningPastTheBlockIsCorruptionNotTruncation() throws IOException {
        byte[] bad = record(1, LOG, B);
        bad[WalFormat.LENGTH_OFFSET] = (byte) 0xFF;
        bad[WalFormat.LENGTH_OFFSET + 1] = (byte) 0x7F; // 32767 > 32757 - 12
        assertCorruptionAt(log(record(1, LOG, A), bad), 12, 1, "past the end of its block");
    }

    @Test
    void checksumMismatch() throws IOException {
        byte[] bad = record(1, LOG, B);
        bad[WalFormat.CRC_OFFSET] ^= 1;
        assertCorruptionAt(log(record(1, LOG, A), bad, record(1, LOG, A)), 12, 1, "checksum");
    }

    @Test
    void damagedLogNumberIsCorruptionNotStaleData() throws IOException {
        byte[] bad = record(1, LOG, B);
        bad[WalFormat.LOG_NUMBER_OFFSET + 3] ^= 0x40;
        assertCorruptionAt(log(record(1, LOG, A), bad), 12, 1, "log number");
    }

    @Test
    void recordOfAnotherLogIsAStaleEnd() throws IOException {
        Outcome outcome = WalTestSupport.readAll(log(record(1, LOG, A), record(1, LOG + 1, B)), LOG);
        assertNull(outcome.error());
        assertEquals(WalReader.End.STALE_DATA, outcome.end());
        assertEquals(12, outcome.offset());
    }

    @Test
    void payloadCutShortIsTruncationAtTheChainStart() throws IOException {
        byte[] whole = log(record(1, LOG, A), record(2, LOG, A), record(3, LOG, B), record(4, LOG, B));
        Outcome outcome = WalTestSupport.readAll(Arrays.copyOf(whole, whole.length - 1), LOG);
        assertEquals(12, WalTestSupport.assertTruncation(outcome).offset());
        assertEquals(12, outcome.offset());
    }
}
