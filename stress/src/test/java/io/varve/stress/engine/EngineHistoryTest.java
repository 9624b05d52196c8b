package io.varve.stress.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.Db;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine campaign's oracle: the database it builds matches all its writes; other states are placed. */
class EngineHistoryTest {

    @Test
    void theBuiltDatabaseIsTheStateAfterAllWritesAndOlderStatesArePrefixes(@TempDir Path dir) throws Exception {
        EngineHistory h = EngineHistory.build(dir, 3, 50, 300);
        assertTrue(h.inTables() > 0 && h.inTables() < h.size());
        int[] state = new int[h.keys()];
        try (Db db = Db.open(dir, EngineCorruptionCampaign.options())) {
            for (int k = 0; k < state.length; k++) {
                state[k] = h.versionOf(k, db.get(EngineHistory.key(k)));
            }
        }
        assertEquals(h.size(), h.matchingPrefix(state));
        int[] empty = new int[h.keys()];
        Arrays.fill(empty, -1);
        assertEquals(0, h.matchingPrefix(empty));
        int[] impossible = state.clone();
        impossible[0] = h.size() + 5;
        assertEquals(-1, h.matchingPrefix(impossible));
        byte[] wrong = EngineHistory.value(1, 0);
        assertThrows(EngineHistory.WrongValueException.class, () -> h.versionOf(2, wrong));
    }
}
