package io.varve.server.store;

import io.varve.server.resp.DoubleFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The score encoding sorts as the numbers do and decodes back; the reply text reads back as the same double. */
class ScoreCodecProperties {

    private static byte[] encode(double d) {
        byte[] out = new byte[ScoreCodec.LENGTH];
        ScoreCodec.encode(d, out, 0);
        return out;
    }

    @Property(tries = 2000)
    void byteOrderIsNumericOrder(@ForAll("scores") double a, @ForAll("scores") double b) {
        int bytes = Integer.signum(Arrays.compareUnsigned(encode(a), encode(b)));
        assertEquals(Integer.signum(Double.compare(ScoreCodec.normalize(a), ScoreCodec.normalize(b))), bytes,
                a + " vs " + b);
        assertEquals(ScoreCodec.normalize(a), ScoreCodec.decode(encode(a), 0));
        assertEquals(ScoreCodec.normalize(a), ScoreCodec.fromValueBytes(ScoreCodec.valueBytes(a)));
    }

    @Property(tries = 2000)
    void replyTextReadsBackAsTheSameDouble(@ForAll("scores") double d) {
        String text = DoubleFormat.format(d);
        double back = switch (text) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
        assertEquals(d, back, text);
    }

    @Provide
    Arbitrary<Double> scores() {
        return Arbitraries.oneOf(
                Arbitraries.doubles(),
                Arbitraries.longs().map(Double::longBitsToDouble).filter(d -> !Double.isNaN(d)),
                Arbitraries.of(0.0, -0.0, 1.0, -1.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE,
                        -Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e17, 1e16, 1e-4, 1e-5));
    }
}
