package io.varve.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * What a decoded request is charged: the heap bytes it really holds. The oracle is the JVM's layout: an
 * array is a 16-byte header plus its elements, padded to 8 bytes; references are 4 or 8 bytes.
 */
class ArgumentCostTest {

    private static final long LIMIT = 1 << 20;
    private static final int REF = DecoderLimits.REFERENCE_BYTES;

    private final RespDecoder decoder = new RespDecoder(DecoderLimits.of(LIMIT, LIMIT), () -> true);
    private final EmbeddedChannel channel = new EmbeddedChannel(decoder);

    private Object decode(String wire) {
        channel.writeInbound(Unpooled.copiedBuffer(wire, StandardCharsets.ISO_8859_1));
        return channel.readInbound();
    }

    private static String emptyArguments(int count) {
        return "*" + count + "\r\n" + "$0\r\n\r\n".repeat(count);
    }

    /** The model: one array of references, plus one padded array per non-empty argument. */
    private static long heapBytes(List<Integer> lengths) {
        long bytes = 16 + (long) lengths.size() * REF;
        for (int length : lengths) {
            bytes += length == 0 ? 0 : (16 + length + 7) / 8 * 8;
        }
        return bytes;
    }

    @Test
    void referencesAreTheSizeTheJvmUses() {
        assertEquals(Runtime.getRuntime().maxMemory() < (32L << 30) ? 4 : 8, REF,
                "compressed references are on by default below a 32 GB heap");
    }

    @Test
    void emptyArgumentsCostTheirReferenceAlone() {
        RespRequest request = assertInstanceOf(RespRequest.class, decode(emptyArguments(1000)));
        assertEquals(1000, request.args().length, "the argument array ends exactly full");
        assertSame(request.args()[0], request.args()[999], "empty arguments share one array");
        assertEquals(16 + 1000L * REF, request.bytes());
    }

    @Test
    void payloadArraysArePaddedToEightBytes() {
        RespRequest request = assertInstanceOf(RespRequest.class, decode("*2\r\n$3\r\nGET\r\n$9\r\nhellohell\r\n"));
        assertEquals(16 + 2L * REF + 24 + 32, request.bytes());
    }

    @Property(tries = 200)
    void chargeIsTheHeapTheArgumentsHold(@ForAll @Size(min = 1, max = 100) List<@IntRange(min = 0, max = 40) Integer> lengths) {
        StringBuilder wire = new StringBuilder("*" + lengths.size() + "\r\n");
        for (int length : lengths) {
            wire.append('$').append(length).append("\r\n").append("x".repeat(length)).append("\r\n");
        }
        RespRequest request = assertInstanceOf(RespRequest.class, decode(wire.toString()));
        assertEquals(lengths.size(), request.args().length);
        assertEquals(heapBytes(lengths), request.bytes());
    }

    @Property(tries = 100)
    void inlineCommandsAreChargedAlike(@ForAll @Size(min = 1, max = 20) List<@IntRange(min = 0, max = 12) Integer> lengths) {
        StringBuilder wire = new StringBuilder();
        for (int length : lengths) {
            wire.append('"').append("y".repeat(length)).append("\" ");
        }
        RespRequest request = assertInstanceOf(RespRequest.class, decode(wire.append("\r\n").toString()));
        assertEquals(heapBytes(lengths), request.bytes());
    }

    @Test
    void aDeclaredCountReservesNothingUntilItsArgumentsArrive() {
        decode("*100000\r\n");
        assertEquals(16 + 16L * REF, decoder.bufferedBytes(), "room for the first 16 references only");
        decode("$0\r\n\r\n".repeat(17));
        assertEquals(16 + 32L * REF, decoder.bufferedBytes(), "the array doubled when the 17th argument came");
    }

    @Test
    void countWhoseEmptyArgumentsCannotFitTheLimitIsRefusedAtTheHeader() {
        long tooMany = (LIMIT - 16) / REF + 1;
        ProtocolError error = assertInstanceOf(ProtocolError.class, decode("*" + tooMany + "\r\n"));
        assertEquals("ERR Protocol error: invalid multibulk length", error.message());
    }

    @Test
    void countThatFitsIsAcceptedButItsArgumentsStillCount() {
        int count = (int) ((LIMIT - 16) / REF);
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
