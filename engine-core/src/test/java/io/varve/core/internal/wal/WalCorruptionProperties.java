package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import io.varve.core.internal.wal.WalTestSupport.Log;
import io.varve.core.internal.wal.WalTestSupport.Outcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * A single damaged byte anywhere in a log is always reported as corruption, after exactly the records that
 * lie wholly before it: never a wrong payload, never a clean end.
 */
class WalCorruptionProperties {

    /** Where to damage the log: anywhere, or where headers and trailers are, which uniform picks rarely hit. */
    enum Aim { ANYWHERE, RECORD_HEADER, BLOCK_START_HEADER, BLOCK_END }

    @Provide
    Arbitrary<List<Integer>> payloadSizes() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, WalOps.sizes()),
                Tuple.of(1, Arbitraries.integers().between(0, 70_000)))
                .list().ofMinSize(1).ofMaxSize(8);
    }

    @Property(tries = 400)
    void flippedByteIsReportedAfterTheIntactPrefix(@ForAll("payloadSizes") List<Integer> sizes,
            @ForAll long seed, @ForAll long logNumber, @ForAll Aim aim,
            @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int where,
            @ForAll @IntRange(min = 1, max = 255) int xor) throws IOException {
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            payloads.add(WalTestSupport.payload(sizes.get(i), seed + i));
        }
        Log log = WalTestSupport.encode(payloads, logNumber);
        byte[] bytes = log.bytes();
        int at = aimAt(aim, log, where);
        bytes[at] ^= (byte) xor;

        Outcome outcome = WalTestSupport.readAll(bytes, logNumber);

        int intact = 0;
        while (intact < log.count() && log.ends()[intact] <= at) {
            intact++;
        }
        WalTestSupport.assertPrefix(payloads, outcome.records(), intact);
        CorruptionException error = outcome.error();
        assertNotNull(error, () -> "damage at offset " + at + " went unnoticed; read ended " + outcome.end());
        assertEquals(WalTestSupport.PATH, error.file());
        assertTrue(error.offset() <= at && error.offset() >= outcome.offset(),
                () -> "damage at " + at + " reported at " + error.offset() + ", valid prefix " + outcome.offset());
    }

    private static int aimAt(Aim aim, Log log, int where) {
        int length = log.bytes().length;
        int blocks = (length + WalFormat.BLOCK_SIZE - 1) / WalFormat.BLOCK_SIZE;
        int candidate = switch (aim) {
            case ANYWHERE -> where % length;
            case RECORD_HEADER -> (int) log.starts()[where % log.count()] + (where >>> 8) % WalFormat.HEADER_SIZE;
            case BLOCK_START_HEADER -> (where % blocks) * WalFormat.BLOCK_SIZE + (where >>> 8) % WalFormat.HEADER_SIZE;
            // The last bytes of a block: a trailer, or the end of a record that fills its block.
            case BLOCK_END -> ((where % blocks) + 1) * WalFormat.BLOCK_SIZE - 1 - (where >>> 8) % WalFormat.HEADER_SIZE;
        };
        return Math.min(candidate, length - 1);
    }
}
