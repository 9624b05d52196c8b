package io.varve.core.internal.version;

import io.varve.core.DocumentedConstants;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class VersionEditFormatTest {

    @Test
    void documentedConstantsMatchTheClass() throws Exception {
        DocumentedConstants.assertSectionMatches("Manifest", VersionEditFormat.class);
    }

    @Test
    void anEditRoundTrips() throws Exception {
        VersionEdit edit = new VersionEdit().logNumber(9).lastSequence(77).nextFileNumber(12)
                .add(2, VersionSetProperties.table(5, 10, 20)).remove(0, 4);
        VersionEdit back = VersionEditFormat.decode(VersionEditFormat.encode(edit, true));
        assertEquals(9, back.logNumber());
        assertEquals(77, back.lastSequence());
        assertEquals(12, back.nextFileNumber());
        assertEquals(1, back.added().size());
        TableMeta t = back.added().getFirst().table();
        assertEquals(5, t.fileNumber());
        assertArrayEquals(VersionSetProperties.key(10), t.smallestKey());
        assertEquals(-1, t.globalSequence());
        assertEquals(new VersionEdit.Removed(0, 4), back.removed().getFirst());
    }

    @Test
    void malformedEditsAreReportedNotThrown() {
        assertThrows(VersionEditFormat.MalformedEditException.class, () -> VersionEditFormat.decode(new byte[] {99}));
        assertThrows(VersionEditFormat.MalformedEditException.class, () -> VersionEditFormat.decode(new byte[] {4, 9}));
        byte[] full = VersionEditFormat.encode(new VersionEdit().add(1, VersionSetProperties.table(5, 1, 2)), false);
        for (int cut = 1; cut < full.length; cut++) {
            byte[] partial = java.util.Arrays.copyOf(full, cut);
            assertThrows(VersionEditFormat.MalformedEditException.class, () -> VersionEditFormat.decode(partial));
        }
    }
}
