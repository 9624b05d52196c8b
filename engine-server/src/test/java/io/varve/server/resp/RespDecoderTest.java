package io.varve.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RespDecoderTest {

    private final AtomicBoolean authenticated = new AtomicBoolean(true);
    private final RespDecoder decoder = new RespDecoder(DecoderLimits.of(1 << 20, 4 << 20), authenticated::get);
    private final EmbeddedChannel channel = new EmbeddedChannel(decoder);

    private List<Object> feed(String... chunks) {
        for (String chunk : chunks) {
            channel.writeInbound(Unpooled.copiedBuffer(chunk, StandardCharsets.ISO_8859_1));
        }
        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = channel.readInbound()) != null) {
            out.add(o);
        }
        return out;
    }

    private static List<String> args(Object request) {
        List<String> out = new ArrayList<>();
        for (byte[] a : assertInstanceOf(RespRequest.class, request).args()) {
            out.add(new String(a, StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    @Test
    void decodesMultibulkSplitAtEveryByte() {
        String frame = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nv\r\nxy\r\n";
        List<Object> out = feed(frame.split(""));
        assertEquals(1, out.size());
        assertEquals(List.of("SET", "k", "v\r\nxy"), args(out.getFirst()));
        assertEquals(0, decoder.bufferedBytes());
    }

    @Test
    void decodesPipelinedAndInlineCommands() {
        List<Object> out = feed("*1\r\n$4\r\nPING\r\nECHO  hello\tworld\r\n\r\n*0\r\nGET \"a b\"\n");
        assertEquals(3, out.size());
        assertEquals(List.of("PING"), args(out.get(0)));
        assertEquals(List.of("ECHO", "hello", "world"), args(out.get(1)));
        assertEquals(List.of("GET", "a b"), args(out.get(2)));
    }

    @Test
    void binaryArgumentsSurviveIntact() {
        byte[] value = new byte[256];
        for (int i = 0; i < 256; i++) {
            value[i] = (byte) i;
        }
        channel.writeInbound(Unpooled.copiedBuffer("*2\r\n$4\r\nECHO\r\n$256\r\n".getBytes(StandardCharsets.US_ASCII)));
        channel.writeInbound(Unpooled.wrappedBuffer(value), Unpooled.copiedBuffer("\r\n".getBytes()));
        RespRequest request = channel.readInbound();
        assertArrayEquals(value, request.args()[1]);
        // The array of two references, "ECHO" in a 24-byte array, the 256 bytes in a 272-byte one.
        assertEquals(16 + 2L * DecoderLimits.REFERENCE_BYTES + 24 + 272, request.bytes(), "the heap bytes held");
    }

    @Test
    void malformedInputYieldsOneErrorAndNothingAfter() {
        List<Object> out = feed("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n+oops\r\n", "*1\r\n$4\r\nPING\r\n");
        assertEquals(2, out.size());
        assertEquals(List.of("PING"), args(out.get(0)));
        assertEquals("ERR Protocol error: expected '$', got '+'",
                assertInstanceOf(ProtocolError.class, out.get(1)).message());
        assertEquals(0, decoder.bufferedBytes(), "input after the error is discarded");
    }

    @Test
    void lengthsAreValidated() {
        assertEquals("ERR Protocol error: invalid bulk length", error("*1\r\n$-1\r\n"));
        assertEquals("ERR Protocol error: invalid bulk length", error("*1\r\n$2000000\r\n"));
        assertEquals("ERR Protocol error: invalid bulk length", error("*1\r\n$1x\r\n"));
        assertEquals("ERR Protocol error: invalid multibulk length", error("*99999999999\r\n"));
        assertEquals("ERR Protocol error: invalid multibulk length", error("*1\rX"));
        assertEquals("ERR Protocol error: too big mbulk count string", error("*" + "1".repeat(40)));
        assertEquals("ERR Protocol error: too big bulk count string", error("*1\r\n$" + "1".repeat(40)));
        assertEquals("ERR Protocol error: bulk string not terminated by CRLF", error("*1\r\n$1\r\nab\r\n"));
    }

    private String error(String input) {
        RespDecoder d = new RespDecoder(DecoderLimits.of(1 << 20, 4 << 20), () -> true);
        EmbeddedChannel ch = new EmbeddedChannel(d);
        ch.writeInbound(Unpooled.copiedBuffer(input, StandardCharsets.ISO_8859_1));
        return assertInstanceOf(ProtocolError.class, ch.readInbound()).message();
    }

    @Test
    void queryBufferLimitCountsPartialArguments() {
        RespDecoder d = new RespDecoder(DecoderLimits.of(1 << 20, 1 << 20), () -> true);
        EmbeddedChannel ch = new EmbeddedChannel(d);
        String chunk = "x".repeat(600_000);
        ch.writeInbound(Unpooled.copiedBuffer("*3\r\n$3\r\nSET\r\n$600000\r\n" + chunk + "\r\n$600000\r\n"
                + chunk.substring(0, 500_000), StandardCharsets.ISO_8859_1));
        assertEquals("ERR Protocol error: query buffer limit exceeded",
                assertInstanceOf(ProtocolError.class, ch.readInbound()).message());
    }

    @Test
    void beforeAuthenticationTheHeaderAloneIsRefused() {
        authenticated.set(false);
        assertEquals("ERR Protocol error: unauthenticated multibulk length",
                assertInstanceOf(ProtocolError.class, feed("*11\r\n").getFirst()).message());
        RespDecoder d = new RespDecoder(DecoderLimits.of(1 << 20, 4 << 20), () -> false);
        EmbeddedChannel ch = new EmbeddedChannel(d);
        ch.writeInbound(Unpooled.copiedBuffer("*2\r\n$4\r\nAUTH\r\n$16385\r\n", StandardCharsets.ISO_8859_1));
        assertEquals("ERR Protocol error: unauthenticated bulk length",
                assertInstanceOf(ProtocolError.class, ch.readInbound()).message());
    }

    @Test
    void pausesAfterAuthUntilResumed() {
        authenticated.set(false);
        List<Object> out = feed("AUTH pw\r\n*1\r\n$4\r\nPING\r\n");
        assertEquals(1, out.size(), "nothing after AUTH is decoded until it ran");
        assertTrue(decoder.isPaused());
        authenticated.set(true);
        decoder.resume();
        assertFalse(decoder.isPaused());
        assertEquals(List.of("PING"), args(channel.readInbound()));
        assertNull(channel.readInbound());
    }
}
