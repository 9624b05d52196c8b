package io.varve.server.resp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Doubles as Redis 7.2 prints them: shortest digits, laid out as %.17g lays them out. */
class DoubleFormatTest {

    @Test
    void matchesRedisText() {
        assertEquals("1", DoubleFormat.format(1));
        assertEquals("-1", DoubleFormat.format(-1));
        assertEquals("1.5", DoubleFormat.format(1.5));
        assertEquals("0.1", DoubleFormat.format(0.1));
        assertEquals("0.0001", DoubleFormat.format(0.0001));
        assertEquals("1e-05", DoubleFormat.format(0.00001));
        assertEquals("10000000000000000", DoubleFormat.format(1e16));
        assertEquals("1e+17", DoubleFormat.format(1e17));
        assertEquals("1.7976931348623157e+308", DoubleFormat.format(Double.MAX_VALUE));
        assertEquals("5e-324", DoubleFormat.format(Double.MIN_VALUE));
        assertEquals("123.456", DoubleFormat.format(123.456));
        assertEquals("inf", DoubleFormat.format(Double.POSITIVE_INFINITY));
        assertEquals("-inf", DoubleFormat.format(Double.NEGATIVE_INFINITY));
        assertEquals("0", DoubleFormat.format(0.0));
    }
}
