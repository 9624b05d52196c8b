package io.varve.server.command;

import io.varve.server.resp.RedisError;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ArgsTest {

    @Property(tries = 1000)
    void canonicalLongsRoundTrip(@ForAll long value) {
        assertEquals(value, Args.tryParseLong(Long.toString(value).getBytes()));
    }

    @Test
    void nonCanonicalIntegersAreRejectedLikeRedis() {
        for (String s : new String[] {"", "+1", "01", "-0", " 1", "1 ", "1.0", "9223372036854775808",
            "-9223372036854775809", "-", "0x10", "1e3"}) {
            assertNull(Args.tryParseLong(s.getBytes()), s);
        }
        assertEquals(Long.MIN_VALUE, Args.tryParseLong("-9223372036854775808".getBytes()));
    }

    @Test
    void floats() {
        assertEquals(1.5, Args.parseDouble("1.5".getBytes()));
        assertEquals(5000.0, Args.parseDouble("5.0e3".getBytes()));
        assertEquals(Double.POSITIVE_INFINITY, Args.parseDouble("+inf".getBytes()));
        for (String s : new String[] {"", "nan", "abc", " 1", "1d", "0x1p3"}) {
            assertThrows(RedisError.class, () -> Args.parseDouble(s.getBytes()), s);
        }
    }
}
