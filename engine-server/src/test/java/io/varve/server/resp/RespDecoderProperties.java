package io.varve.server.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decoder against arbitrary bytes: it never throws, emits at most one error and nothing after it,
 * buffers no more than its limits allow, and decodes valid streams identically however they are split.
 */
class RespDecoderProperties {

    private static final long QUERY_LIMIT = 64 << 10;
    private static final long BULK_LIMIT = 16 << 10;

    private static List<Object> run(RespDecoder decoder, List<byte[]> chunks, long[] maxBuffered) {
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        List<Object> out = new ArrayList<>();
        for (byte[] chunk : chunks) {
            channel.writeInbound(Unpooled.wrappedBuffer(chunk)); // throws if the decoder let an exception escape
            maxBuffered[0] = Math.max(maxBuffered[0], decoder.bufferedBytes() - chunk.length);
            Object o;
            while ((o = channel.readInbound()) != null) {
                out.add(o);
            }
        }
        channel.finishAndReleaseAll();
        return out;
    }

    @Property(tries = 300)
    void randomBytesNeverBreakTheDecoder(@ForAll("noise") List<byte[]> chunks, @ForAll boolean authenticated) {
        RespDecoder decoder = new RespDecoder(new DecoderLimits(BULK_LIMIT, QUERY_LIMIT, 4096, 10, 1024),
                () -> authenticated);
        long[] maxBuffered = {0};
        List<Object> out = run(decoder, chunks, maxBuffered);
        int errors = 0;
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i) instanceof ProtocolError) {
                errors++;
                assertEquals(out.size() - 1, i, "nothing is decoded after an error");
            } else {
                assertTrue(out.get(i) instanceof RespRequest);
            }
        }
        assertTrue(errors <= 1);
        // Before each new chunk the decoder holds at most the query buffer limit (plus one length line).
        assertTrue(maxBuffered[0] <= QUERY_LIMIT + 64, "buffered " + maxBuffered[0]);
    }

    @Property(tries = 200)
    void mutatedValidStreamsNeverBreakTheDecoder(@ForAll("commands") List<List<byte[]>> commands,
                                                 @ForAll @IntRange(min = 0, max = 1000) int position,
                                                 @ForAll byte replacement,
                                                 @ForAll @IntRange(min = 1, max = 97) int chunkSize) {
        byte[] stream = encode(commands);
        if (stream.length > 0) {
            stream[position % stream.length] = replacement;
        }
        RespDecoder decoder = new RespDecoder(new DecoderLimits(BULK_LIMIT, QUERY_LIMIT, 4096, 10, 1024), () -> true);
        long[] maxBuffered = {0};
        List<Object> out = run(decoder, split(stream, chunkSize), maxBuffered);
        long errors = out.stream().filter(o -> o instanceof ProtocolError).count();
        assertTrue(errors <= 1);
        assertTrue(maxBuffered[0] <= QUERY_LIMIT + 64);
    }

    @Property(tries = 200)
    void validStreamsDecodeTheSameHoweverSplit(@ForAll("commands") List<List<byte[]>> commands,
                                               @ForAll @IntRange(min = 1, max = 50) int chunkSize) {
        RespDecoder decoder = new RespDecoder(new DecoderLimits(BULK_LIMIT, QUERY_LIMIT, 4096, 10, 1024), () -> true);
        List<Object> out = run(decoder, split(encode(commands), chunkSize), new long[1]);
        assertEquals(commands.size(), out.size());
        for (int i = 0; i < commands.size(); i++) {
            RespRequest r = (RespRequest) out.get(i);
            assertEquals(commands.get(i).size(), r.args().length);
            for (int j = 0; j < r.args().length; j++) {
                assertArrayEquals(commands.get(i).get(j), r.args()[j]);
            }
        }
        assertEquals(0, decoder.bufferedBytes());
    }

    @Property(tries = 100)
    void oversizedBulksAreRefusedAtTheirHeader(@ForAll @IntRange(min = 16385, max = Integer.MAX_VALUE - 16) int length) {
        RespDecoder decoder = new RespDecoder(new DecoderLimits(BULK_LIMIT, QUERY_LIMIT, 4096, 10, 1024), () -> true);
        byte[] header = ("*2\r\n$3\r\nSET\r\n$" + length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        List<Object> out = run(decoder, List.of(header), new long[1]);
        assertEquals(List.of(new ProtocolError("ERR Protocol error: invalid bulk length")), out);
    }

    @Provide
    Arbitrary<List<byte[]>> noise() {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<byte[]> respish = Arbitraries.of("*", "$", "\r\n", "\r", "\n", "-1", "0", "3", "99999", "16385",
                        "*2\r\n", "$3\r\nGET\r\n", "$100000\r\n", "\"", "'", " ", "PING", "\\x4", "*99999999999999999999")
                .list().ofMaxSize(30)
                .map(parts -> String.join("", parts).getBytes(StandardCharsets.ISO_8859_1));
        Arbitrary<byte[]> big = Arbitraries.integers().between(1, 70_000).map(n -> {
            byte[] b = new byte[n];
            Arrays.fill(b, (byte) 'a');
            return b;
        });
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, random), net.jqwik.api.Tuple.of(5, respish), net.jqwik.api.Tuple.of(1, big))
                .list().ofMaxSize(40);
    }

    @Provide
    Arbitrary<List<List<byte[]>>> commands() {
        Arbitrary<byte[]> arg = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
        return arg.list().ofMinSize(1).ofMaxSize(6).list().ofMaxSize(20);
    }

    private static byte[] encode(List<List<byte[]>> commands) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (List<byte[]> command : commands) {
            out.writeBytes(("*" + command.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] a : command) {
                out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.writeBytes(a);
                out.writeBytes(new byte[] {'\r', '\n'});
            }
        }
        return out.toByteArray();
    }

    private static List<byte[]> split(byte[] stream, int chunkSize) {
        List<byte[]> chunks = new ArrayList<>();
        for (int i = 0; i < stream.length; i += chunkSize) {
            chunks.add(Arrays.copyOfRange(stream, i, Math.min(stream.length, i + chunkSize)));
        }
        return chunks;
    }
}
