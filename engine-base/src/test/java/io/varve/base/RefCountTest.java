package io.varve.base;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A count that reached zero stays there: neither a retain nor an over-release brings the object back. */
class RefCountTest {

    @Test
    void onlyTheLastReleaseFrees() {
        RefCount count = new RefCount("thing");
        count.retain();
        assertFalse(count.release());
        assertTrue(count.release());
        assertEquals(0, count.get());
    }

    @Test
    void anOverReleaseIsReportedAndNeverResurrects() {
        RefCount count = new RefCount("thing");
        assertTrue(count.release());
        assertThrows(IllegalStateException.class, count::release);
        assertEquals(0, count.get(), "the failed release left the count alone");
        assertFalse(count.tryRetain(), "a freed object is never retained again");
        assertThrows(IllegalStateException.class, count::retain);
    }
}
