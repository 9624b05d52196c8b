package io.varve.core.internal.wal;

import io.varve.core.internal.wal.WalTestSupport.BytesFile;
import io.varve.core.internal.wal.WalTestSupport.Log;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** A log cut at any offset reads back as the intact prefix, then a clean end or a truncation. */
class WalTruncationTest {

    private static final long LOG_NUMBER = 0x12_3456_789AL;

    /** Every offset of a log just over one block: FULL records of all sizes and an empty FIRST + LAST. */
    @Test
    void everyCutOfASmallLog() throws IOException {
        Log log = WalTestSupport.encode(payloads(0, 1, 100, leave(WalFormat.HEADER_SIZE), 300, 3, 0), LOG_NUMBER);
        cutAt(log, length -> true);
    }

    /**
     * A log of four blocks with a 5-byte trailer, a block filled exactly, an empty FIRST in a block's last
     * header slot and a FIRST / MIDDLE / LAST chain. Cutting it everywhere would re-read ~6 GB, so it is cut
     * at every offset near a block or record boundary, where the cases differ, and every 61 bytes elsewhere.
     */
    @Test
    void cutsAroundEveryBoundaryOfALargerLog() throws IOException {
        List<byte[]> payloads =
                payloads(0, 1, 100, leave(5), 500, leave(0), 7, leave(WalFormat.HEADER_SIZE), 40_000, 3, 0);
        Log log = WalTestSupport.encode(payloads, LOG_NUMBER);
        List<Long> boundaries = new ArrayList<>();
        for (int i = 0; i < log.count(); i++) {
            boundaries.add(log.starts()[i]);
            boundaries.add(log.ends()[i]);
        }
        for (long block = 0; block <= log.bytes().length; block += WalFormat.BLOCK_SIZE) {
            boundaries.add(block);
        }
        int near = 2 * WalFormat.HEADER_SIZE;
        cutAt(log, length -> length % 61 == 0
                || boundaries.stream().anyMatch(b -> Math.abs(b - length) <= near));
    }

    private static void cutAt(Log log, IntPredicate which) throws IOException {
        byte[] bytes = log.bytes();
        for (int length = 0; length <= bytes.length; length++) {
            if (!which.test(length)) {
                continue;
            }
            WalTestSupport.Outcome outcome = WalTestSupport.readAll(new BytesFile(bytes, length), LOG_NUMBER);
            try {
                WalTestSupport.assertTruncatedRead(log, length, outcome);
            } catch (AssertionError e) {
                throw new AssertionError("log cut to " + length + " bytes: " + e.getMessage(), e);
            }
        }
    }

    /** Marks a planned size as "whatever size leaves this many bytes in the block". */
    private static final int LEAVE = 1 << 30;

    private static int leave(int bytesLeftInBlock) {
        return LEAVE + bytesLeftInBlock;
    }

    private static List<byte[]> payloads(int... plan) {
        List<byte[]> payloads = new ArrayList<>();
        long size = 0;
        for (int i = 0; i < plan.length; i++) {
            int length = plan[i] >= LEAVE ? WalTestSupport.sizeLeaving(size, plan[i] - LEAVE) : plan[i];
            payloads.add(WalTestSupport.payload(length, i));
            size += WalFormat.encodedLength(size, length);
        }
        return payloads;
    }
}
