package io.varve.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Writes replies in RESP2 or RESP3 into a buffer. Commands call the semantic methods ({@link #nil()},
 * {@link #mapHeader(int)}, {@link #doubleValue(double)}, ...) and the protocol version picks the wire form:
 * RESP2 has no null, map, set, double or boolean types, so those degrade the way Redis degrades them
 * ({@code $-1}, flat arrays, bulk strings, integers). Not thread-safe: one per command batch.
 */
public final class Reply {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[][] SMALL_INTS = new byte[64][];
    /** Bulk headers ("$n\r\n") of short values, which most replies are. */
    private static final byte[][] SMALL_BULK_HEADERS = new byte[256][];

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = (":" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        for (int i = 0; i < SMALL_BULK_HEADERS.length; i++) {
            SMALL_BULK_HEADERS[i] = ("$" + i + "\r\n").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private ByteBuf out;
    private int protocol;

    public Reply(ByteBuf out, int protocol) {
        this.out = out;
        this.protocol = protocol;
    }

    public ByteBuf buffer() {
        return out;
    }

    public int protocol() {
        return protocol;
    }

    /** Switches the version for the following replies (HELLO answers in the version it selects). */
    public void protocol(int version) {
        this.protocol = version;
    }

    public boolean resp3() {
        return protocol >= 3;
    }

    public void ok() {
        out.writeBytes(OK);
    }

    public void simple(String text) {
        out.writeByte('+');
        ByteBufUtil.writeAscii(out, text);
        out.writeBytes(CRLF);
    }

    /** {@code text} is the whole error line, code included; CR and LF are replaced so the frame stays valid. */
    public void error(String text) {
        out.writeByte('-');
        ByteBufUtil.writeUtf8(out, text.replace('\r', ' ').replace('\n', ' '));
        out.writeBytes(CRLF);
    }

    public void integer(long value) {
        if (value >= 0 && value < SMALL_INTS.length) {
            out.writeBytes(SMALL_INTS[(int) value]);
            return;
        }
        out.writeByte(':');
        ByteBufUtil.writeAscii(out, Long.toString(value));
        out.writeBytes(CRLF);
    }

    public void bulk(byte[] value) {
        if (value == null) {
            nil();
            return;
        }
        if (value.length < SMALL_BULK_HEADERS.length) {
            out.writeBytes(SMALL_BULK_HEADERS[value.length]);
        } else {
            out.writeByte('$');
            ByteBufUtil.writeAscii(out, Integer.toString(value.length));
            out.writeBytes(CRLF);
        }
        out.writeBytes(value);
        out.writeBytes(CRLF);
    }

    public void bulk(String value) {
        bulk(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** A missing value: RESP2 null bulk string, RESP3 null. */
    public void nil() {
        out.writeBytes(resp3() ? NULL3 : NULL_BULK);
    }

    /** A missing aggregate: RESP2 null array, RESP3 null. */
    public void nullArray() {
        out.writeBytes(resp3() ? NULL3 : NULL_ARRAY);
    }

    public void arrayHeader(long count) {
        aggregate('*', count);
    }

    /** An out-of-band message (pub/sub): RESP3 push type, RESP2 plain array. */
    public void pushHeader(long count) {
        aggregate(resp3() ? '>' : '*', count);
    }

    /** A map of {@code pairs} key/value pairs; RESP2 gets a flat array of twice the length. */
    public void mapHeader(long pairs) {
        if (resp3()) {
            aggregate('%', pairs);
        } else {
            aggregate('*', pairs * 2);
        }
    }

    public void setHeader(long count) {
        aggregate(resp3() ? '~' : '*', count);
    }

    /** A double as Redis replies it (text from {@link DoubleFormat}): RESP3 double, RESP2 bulk string. */
    public void doubleValue(double value) {
        String text = DoubleFormat.format(value);
        if (resp3()) {
            out.writeByte(',');
            ByteBufUtil.writeAscii(out, text);
            out.writeBytes(CRLF);
        } else {
            bulk(text);
        }
    }

    public void bool(boolean value) {
        if (resp3()) {
            out.writeBytes(value ? "#t\r\n".getBytes(StandardCharsets.US_ASCII) : "#f\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
            integer(value ? 1 : 0);
        }
    }

    /** Text meant for humans (INFO, CLIENT LIST): RESP3 verbatim string of format txt, RESP2 bulk string. */
    public void verbatim(String text) {
        if (!resp3()) {
            bulk(text);
            return;
        }
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        out.writeByte('=');
        ByteBufUtil.writeAscii(out, Integer.toString(body.length + 4));
        out.writeBytes(CRLF);
        ByteBufUtil.writeAscii(out, "txt:");
        out.writeBytes(body);
        out.writeBytes(CRLF);
    }

    private void aggregate(char type, long count) {
        out.writeByte(type);
        ByteBufUtil.writeAscii(out, Long.toString(count));
        out.writeBytes(CRLF);
    }

    /**
     * Shortest text that reads back as the same double, without exponent or trailing ".0" (Redis prints 3, not
     * 3.0); infinities are {@code inf}/{@code -inf} as in RESP3.
     */
    public static String formatDouble(double value) {
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (Double.isNaN(value)) {
            return "nan";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e17) {
            return Long.toString((long) value);
        }
        return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
    }
}
