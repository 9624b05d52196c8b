package io.varve.server.command;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GlobTest {

    private static boolean m(String pattern, String text) {
        return new Glob(pattern.getBytes()).matches(text.getBytes());
    }

    @Test
    void redisGlobSyntax() {
        assertTrue(m("*", ""));
        assertTrue(m("h?llo", "hello"));
        assertFalse(m("h?llo", "hllo"));
        assertTrue(m("h*llo", "heeeello"));
        assertTrue(m("h[ae]llo", "hallo"));
        assertFalse(m("h[ae]llo", "hillo"));
        assertTrue(m("h[^e]llo", "hallo"));
        assertFalse(m("h[^e]llo", "hello"));
        assertTrue(m("h[a-b]llo", "hbllo"));
        assertTrue(m("h\\*llo", "h*llo"));
        assertFalse(m("h\\*llo", "hello"));
        assertTrue(m("*max*", "proto-max-bulk-len"));
        assertFalse(m("user:*", "users"));
        assertTrue(m("a*b*c", "axxbyyc"));
        assertFalse(m("a*b*c", "axxbyy"));
    }

    /**
     * A matcher that backtracks into every star would try about C(5000, 8), some 10^25, splits here and never
     * finish; the timeout only turns that hang into a failure.
     */
    @Test
    @Timeout(60)
    void hostilePatternsStayFast() {
        assertFalse(m("*a*a*a*a*a*a*a*a*b", "a".repeat(5000)));
    }

    @Test
    void literalPrefix() {
        assertArrayEquals("user:".getBytes(), new Glob("user:*".getBytes()).literalPrefix());
        assertArrayEquals("a*b".getBytes(), new Glob("a\\*b?".getBytes()).literalPrefix());
        assertArrayEquals(new byte[0], new Glob("*x".getBytes()).literalPrefix());
    }
}
