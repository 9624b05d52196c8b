package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import io.varve.core.internal.wal.WalTestSupport.Log;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Bytes that are not this log's (an older log in a recycled file, preallocated zeros) end the log cleanly;
 * the same bytes in the middle of this log are corruption, and after an unfinished fragment chain a torn
 * tail.
 */
class WalStaleDataProperties {

    @Example
    void logReadWithAnotherLogNumberIsEmpty() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(10, 40_000, 0, 5), 1), 7);
        Outcome outcome = WalTestSupport.readAll(log.bytes(), 8);
        assertNull(outcome.error());
        assertEquals(List.of(), outcome.records());
        assertEquals(WalReader.End.STALE_DATA, outcome.end());
        assertEquals(0, outcome.offset());
    }

    @Provide
    Arbitrary<List<Integer>> sizes() {
        return WalOps.sizes().list().ofMaxSize(12);
    }

    /** A recycled file: the new log overwrote a prefix of the old one, whose bytes follow at any alignment. */
    @Property(tries = 200)
    void newLogOverOldLogEndsCleanlyAfterTheNewRecords(@ForAll("sizes") List<Integer> oldSizes,
            @ForAll("sizes") List<Integer> newSizes, @ForAll long oldLogNumber, @ForAll long newLogNumber,
            @ForAll long seed) throws IOException {
        Assume.that((int) oldLogNumber != (int) newLogNumber);
        byte[] oldLog = WalTestSupport.encode(payloads(oldSizes, seed), oldLogNumber).bytes();
        Log newLog = WalTestSupport.encode(payloads(newSizes, ~seed), newLogNumber);
        if (oldLog.length < newLog.bytes().length) {
            // The file is recycled only if the old log was the longer one: swap the roles of the two lists.
            oldLog = WalTestSupport.encode(payloads(newSizes, seed), oldLogNumber).bytes();
            newLog = WalTestSupport.encode(payloads(oldSizes, ~seed), newLogNumber);
        }
        Assume.that(oldLog.length > newLog.bytes().length);
        byte[] file = oldLog.clone();
        System.arraycopy(newLog.bytes(), 0, file, 0, newLog.bytes().length);

        Outcome outcome = WalTestSupport.readAll(file, newLogNumber);
        WalTestSupport.assertPrefix(newLog.payloads(), outcome.records(), newLog.count());
        assertEquals(newLog.bytes().length, outcome.offset());
        int leftOver = file.length - newLog.bytes().length;
        if (outcome.error() instanceof TruncatedRecordException e && leftOver < WalFormat.HEADER_SIZE) {
            // The old log ends a few bytes after the new one; those bytes may be a torn header of the new log.
            assertEquals(newLog.bytes().length, e.offset());
            return;
        }
        assertNull(outcome.error(), () -> "stale bytes must end the log cleanly: " + outcome.error());
        // The file can only end in the new log's trailer padding if the old log ended just there.
        boolean endsInTrailer = file.length <= WalTestSupport.headerStart(newLog.bytes().length);
        assertTrue(outcome.end() == WalReader.End.STALE_DATA || outcome.end() == WalReader.End.ZERO_FILL
                || (endsInTrailer && outcome.end() == WalReader.End.END_OF_FILE), () -> "ended " + outcome.end());
    }

    /** Preallocated space, or a crash that extended the file without writing it: zeros after the log. */
    @Property(tries = 50)
    void zerosAfterTheLogEndItCleanly(@ForAll("sizes") List<Integer> sizes, @ForAll long logNumber,
            @ForAll @IntRange(min = 1, max = 3 * WalFormat.BLOCK_SIZE) int zeros) throws IOException {
        Log log = WalTestSupport.encode(payloads(sizes, logNumber), logNumber);
        byte[] file = Arrays.copyOf(log.bytes(), log.bytes().length + zeros);

        Outcome outcome = WalTestSupport.readAll(file, logNumber);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), log.count());
        // Zeros that only fill a block's trailer are ordinary padding.
        boolean onlyTrailer = WalTestSupport.headerStart(log.bytes().length) >= file.length;
        assertEquals(onlyTrailer ? WalReader.End.END_OF_FILE : WalReader.End.ZERO_FILL, outcome.end());
        assertEquals(log.bytes().length, outcome.offset());
    }

    @Example
    void zerosAfterAnUnfinishedChainAreATornTail() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100, 50_000), 3), 9);
        // Keep the first record and the FIRST fragment of the second; the rest never made it to disk.
        int firstFragmentEnd = WalFormat.BLOCK_SIZE;
        byte[] file = Arrays.copyOf(log.bytes(), firstFragmentEnd + 2 * WalFormat.BLOCK_SIZE);
        Arrays.fill(file, firstFragmentEnd, file.length, (byte) 0);

        Outcome outcome = WalTestSupport.readAll(file, 9);
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), 1);
        assertEquals(log.starts()[1], WalTestSupport.assertTruncation(outcome).offset());
        assertEquals(log.ends()[0], outcome.offset());
    }

    @Example
    void staleBytesAfterAnUnfinishedChainAreATornTail() throws IOException {
        byte[] old = WalTestSupport.encode(payloads(List.of(5, 5, 100_000), 4), 41).bytes();
        Log log = WalTestSupport.encode(payloads(List.of(100, 50_000), 3), 42);
        byte[] file = old.clone();
        System.arraycopy(log.bytes(), 0, file, 0, WalFormat.BLOCK_SIZE); // up to the end of the FIRST fragment

        Outcome outcome = WalTestSupport.readAll(file, 42);
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), 1);
        assertEquals(log.starts()[1], WalTestSupport.assertTruncation(outcome).offset());
    }

    /** A zeroed stretch inside the log, with the log going on in a later block, is damage, not an end. */
    @Example
    void zeroHoleFollowedByMoreOfTheLogIsCorruption() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100, 200, 300, 40_000, 7, 8), 5), 11);
        byte[] file = log.bytes().clone();
        int hole = (int) log.starts()[2];
        Arrays.fill(file, hole, WalFormat.BLOCK_SIZE, (byte) 0);

        Outcome outcome = WalTestSupport.readAll(file, 11);
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), 2);
        assertCorruptionNotTruncation(outcome, hole);
    }

    /** Bytes of an older log inside this one, with this log's records in a later block: damage again. */
    @Example
    void foreignRecordFollowedByMoreOfTheLogIsCorruption() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100, 200, 300, 40_000, 7, 8), 5), 11);
        byte[] foreign = WalTestSupport.encode(payloads(List.of(30_000), 6), 10).bytes();
        byte[] file = log.bytes().clone();
        int at = (int) log.starts()[1];
        System.arraycopy(foreign, 0, file, at, Math.min(foreign.length, WalFormat.BLOCK_SIZE - at));

        Outcome outcome = WalTestSupport.readAll(file, 11);
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), 1);
        assertCorruptionNotTruncation(outcome, at);
    }

    /** A trailer is zeros when written; non-zero bytes there with nothing of this log after them are stale. */
    @Example
    void nonZeroTrailerAtTheEndIsStaleData() throws IOException {
        List<byte[]> payloads = new ArrayList<>();
        payloads.add(WalTestSupport.payload(WalTestSupport.sizeLeaving(0, 6), 1));
        Log log = WalTestSupport.encode(payloads, 12);
        byte[] file = WalTestSupport.concat(log.bytes(), new byte[] {0, 0, 7, 0, 0, 0});

        Outcome outcome = WalTestSupport.readAll(file, 12);
        assertNull(outcome.error());
        WalTestSupport.assertPrefix(log.payloads(), outcome.records(), 1);
        assertEquals(WalReader.End.STALE_DATA, outcome.end());
    }

    @Example
    void partialZeroHeaderAtTheEndIsZeroFill() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100), 1), 12);
        byte[] file = Arrays.copyOf(log.bytes(), log.bytes().length + WalFormat.HEADER_SIZE - 1);

        Outcome outcome = WalTestSupport.readAll(file, 12);
        assertNull(outcome.error());
        assertEquals(WalReader.End.ZERO_FILL, outcome.end());
        assertEquals(1, outcome.records().size());
    }

    /** A partial header whose log-number bytes are another log's is stale, not torn. */
    @Example
    void partialHeaderOfAnotherLogAtTheEndIsStaleData() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100), 1), 0x0102_0304);
        byte[] next = WalTestSupport.encode(payloads(List.of(5), 2), 0x0102_0399).bytes();
        byte[] file = WalTestSupport.concat(log.bytes(), Arrays.copyOf(next, 8)); // one log-number byte

        Outcome outcome = WalTestSupport.readAll(file, 0x0102_0304);
        assertNull(outcome.error());
        assertEquals(WalReader.End.STALE_DATA, outcome.end());
        assertEquals(1, outcome.records().size());
    }

    /** The same partial header with this log's number is a torn write. */
    @Example
    void partialHeaderOfThisLogAtTheEndIsTruncation() throws IOException {
        Log log = WalTestSupport.encode(payloads(List.of(100, 5), 1), 0x0102_0304);
        byte[] file = Arrays.copyOf(log.bytes(), (int) log.starts()[1] + 10);

        Outcome outcome = WalTestSupport.readAll(file, 0x0102_0304);
        assertEquals(log.starts()[1], WalTestSupport.assertTruncation(outcome).offset());
        assertEquals(1, outcome.records().size());
    }

    private static void assertCorruptionNotTruncation(Outcome outcome, long offset) {
        CorruptionException error = outcome.error();
        assertTrue(error != null, () -> "expected corruption, read ended " + outcome.end());
        assertFalse(error instanceof TruncatedRecordException, error::toString);
        assertEquals(offset, error.offset());
    }

    private static List<byte[]> payloads(List<Integer> sizes, long seed) {
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            payloads.add(WalTestSupport.payload(sizes.get(i), seed * 31 + i));
        }
        return payloads;
    }
}
