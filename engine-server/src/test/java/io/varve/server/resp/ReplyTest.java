package io.varve.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The same reply calls produce RESP2 or RESP3 wire forms. */
class ReplyTest {

    private static String encode(int protocol, Consumer<Reply> writes) {
        ByteBuf buf = Unpooled.buffer();
        writes.accept(new Reply(buf, protocol));
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void nullsMapsDoublesAndBooleans() {
        Consumer<Reply> r = reply -> {
            reply.nil();
            reply.nullArray();
            reply.mapHeader(1);
            reply.bulk("k");
            reply.integer(-7);
            reply.doubleValue(2.5);
            reply.bool(true);
            reply.setHeader(0);
            reply.verbatim("hi");
        };
        assertEquals("$-1\r\n*-1\r\n*2\r\n$1\r\nk\r\n:-7\r\n$3\r\n2.5\r\n:1\r\n*0\r\n$2\r\nhi\r\n", encode(2, r));
        assertEquals("_\r\n_\r\n%1\r\n$1\r\nk\r\n:-7\r\n,2.5\r\n#t\r\n~0\r\n=6\r\ntxt:hi\r\n", encode(3, r));
    }

    @Test
    void bulkHeadersAreRightOnBothSidesOfTheCachedLengths() {
        for (int length : new int[] {0, 1, 9, 10, 255, 256, 1000}) {
            String value = "v".repeat(length);
            assertEquals("$" + length + "\r\n" + value + "\r\n", encode(2, reply -> reply.bulk(value)));
        }
    }

    @Test
    void errorsCannotBreakFraming() {
        assertEquals("-ERR a  b\r\n", encode(2, reply -> reply.error("ERR a\r\nb")));
    }

    @Test
    void doublesPrintLikeRedis() {
        assertEquals("3", Reply.formatDouble(3.0));
        assertEquals("10.6", Reply.formatDouble(10.5 + 0.1));
        assertEquals("0.0001", Reply.formatDouble(1e-4));
        assertEquals("inf", Reply.formatDouble(Double.POSITIVE_INFINITY));
        assertEquals("123456789012345680000", Reply.formatDouble(1.2345678901234568e20));
    }
}
