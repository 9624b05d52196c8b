package io.varve.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

/** What a decoded request is charged: every argument's heap cost, so empty arguments are not free. */
class ArgumentCostTest {

    private static final long LIMIT = 1 << 20;

    private final EmbeddedChannel channel = new EmbeddedChannel(new RespDecoder(DecoderLimits.of(LIMIT, LIMIT), () -> true));

    private Object decode(String wire) {
        channel.writeInbound(Unpooled.copiedBuffer(wire, StandardCharsets.ISO_8859_1));
        Object first = channel.readInbound();
        return first;
    }

    private static String emptyArguments(int count) {
        return "*" + count + "\r\n" + "$0\r\n\r\n".repeat(count);
    }

    @Test
    void emptyArgumentsAreChargedTheirHeapCost() {
        RespRequest request = assertInstanceOf(RespRequest.class, decode(emptyArguments(1000)));
        assertEquals(1000, request.args().length);
        assertEquals(1000L * DecoderLimits.ARGUMENT_OVERHEAD, request.bytes());
    }

    @Test
    void payloadAndOverheadAreBothCharged() {
        RespRequest request = assertInstanceOf(RespRequest.class, decode("*2\r\n$3\r\nGET\r\n$5\r\nhello\r\n"));
        assertEquals(3 + 5 + 2L * DecoderLimits.ARGUMENT_OVERHEAD, request.bytes());
    }

    @Test
    void countWhoseEmptyArgumentsCannotFitTheLimitIsRefusedAtTheHeader() {
        long tooMany = LIMIT / DecoderLimits.ARGUMENT_OVERHEAD + 1;
        ProtocolError error = assertInstanceOf(ProtocolError.class, decode("*" + tooMany + "\r\n"));
        assertEquals("ERR Protocol error: invalid multibulk length", error.message());
    }

    @Test
    void countThatFitsIsAcceptedButItsArgumentsStillCount() {
        int count = (int) (LIMIT / DecoderLimits.ARGUMENT_OVERHEAD);
        // Each argument carries 8 payload bytes: the count fits the limit, the arguments do not.
        String wire = "*" + count + "\r\n" + "$8\r\nxxxxxxxx\r\n".repeat(count);
        ProtocolError error = assertInstanceOf(ProtocolError.class, decode(wire));
        assertEquals("ERR Protocol error: query buffer limit exceeded", error.message());
        assertNull(channel.readInbound(), "nothing is decoded after the error");
    }

    @Test
    void negativeCountsAreSkipped() {
        assertNull(decode("*-5\r\n"), "as in Redis, a negative count is no command at all");
    }
}
