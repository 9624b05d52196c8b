package io.varve.stress.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The raft-log oracle accepts exactly the prefixes that keep every acknowledged synced batch after a machine
 * crash, and every acknowledged batch after a process kill or a clean close.
 */
class AckHistoryTest {

    private static AckHistory history() {
        AckHistory h = new AckHistory();
        h.line("READY");
        h.line("W 0 0 a 1 1 3 10");
        h.line("A 0");
        h.line("W 1 1 p 1 hs 11;a 2 1 2 11");
        h.line("A 1");
        h.line("W 2 0 a 1 4 1 12");
        h.line("A 2");
        h.line("W 3 0 c 1 2");
        return h;
    }

    private static LogModel after(int batches) {
        LogModel m = new LogModel();
        List<String> texts = List.of("a 1 1 3 10", "p 1 hs 11;a 2 1 2 11", "a 1 4 1 12", "c 1 2");
        for (int i = 0; i < batches; i++) {
            m.apply(LogOp.decodeBatch(texts.get(i)));
        }
        return m;
    }

    @Test
    void everyPrefixFromTheLastSyncedAcknowledgementOnIsAllowed() {
        AckHistory h = history();
        assertEquals(2, h.mustSurvive());
        assertEquals(2, h.matchingPrefix(new LogModel(), after(2)));
        assertEquals(3, h.matchingPrefix(new LogModel(), after(3)));
        assertEquals(4, h.matchingPrefix(new LogModel(), after(4)), "the batch in flight may have been written");
    }

    @Test
    void losingASyncedBatchOrGainingAnUnknownOneIsNot() {
        AckHistory h = history();
        assertEquals(-1, h.matchingPrefix(new LogModel(), after(1)));
        LogModel extra = after(4);
        extra.apply(List.of(new LogOp.Put(3, "hs", 99)));
        assertEquals(-1, h.matchingPrefix(new LogModel(), extra));
        LogModel hole = after(3);
        hole.apply(List.of(new LogOp.Compact(2, 2)));
        assertEquals(-1, h.matchingPrefix(new LogModel(), hole));
    }

    @Test
    void afterACleanCloseEveryAcknowledgedBatchMustSurvive() {
        AckHistory h = history();
        h.allAcknowledgedDurable();
        assertEquals(3, h.mustSurvive());
        assertEquals(-1, h.matchingPrefix(new LogModel(), after(2)), "an acknowledged unsynced batch lost");
        assertEquals(3, h.matchingPrefix(new LogModel(), after(3)));
        assertEquals(4, h.matchingPrefix(new LogModel(), after(4)), "the batch in flight may have been written");
    }

    @Test
    void afterAProcessKillEveryAcknowledgedBatchMustSurviveSyncedOrNot() {
        AckHistory h = history();
        h.processKilled();
        assertEquals(-1, h.matchingPrefix(new LogModel(), after(2)), "an acknowledged unsynced batch lost");
        assertEquals(3, h.matchingPrefix(new LogModel(), after(3)));
        assertEquals(4, h.matchingPrefix(new LogModel(), after(4)), "the batch in flight may have been written");
    }

    @Test
    void aSkippedBatchIsAProtocolError() {
        AckHistory h = history();
        h.line("W 5 0 a 1 5 1 13");
        assertNotNull(h.protocolError());
    }

    @Test
    void entryBytesTellTheirVersionAndAnyChangeIsCaught() {
        byte[] e = LogOp.entry(3, 17, 42);
        assertEquals(42, LogOp.entryVersion(3, 17, e));
        assertEquals(-1, LogOp.entryVersion(3, 18, e), "an entry read at another index");
        e[e.length - 1] ^= 1;
        assertEquals(-1, LogOp.entryVersion(3, 17, e));
        byte[] v = LogOp.value(3, "hs", 5);
        assertEquals(5, LogOp.valueVersion(3, "hs", v));
        assertEquals(-1, LogOp.valueVersion(3, "apply", v));
    }
}
