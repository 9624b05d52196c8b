package io.varve.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Turns the bytes of one connection into {@link RespRequest}s: RESP multibulk arrays of bulk strings
 * ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline commands ({@code GET k\r\n}, for telnet and
 * one-liners).
 *
 * <p>Hand-written rather than Netty's codec-redis because limits must be enforced on <em>headers</em>,
 * before any payload is buffered: a {@code $536870912} from an unauthenticated peer is refused when its
 * length line arrives, not after half a gigabyte. It also decodes straight into {@code byte[][]}, with no
 * per-argument message objects or aggregation stage.
 *
 * <p>Memory is bounded by construction: a bulk's bytes stay in Netty's cumulation buffer until the whole
 * bulk arrived (nothing is pre-allocated from a declared length), and the cumulation plus the arguments
 * already parsed for the command in progress may not exceed the query buffer limit. The arguments are
 * charged the heap bytes they really hold: the argument array at its current capacity, one reference per
 * slot, and each non-empty argument's padded array ({@link DecoderLimits#payloadCost}); empty arguments
 * share one array and cost their reference alone. The argument array grows by doubling up to the declared
 * count, so it ends exactly full and becomes the request without a copy, and a declared count reserves
 * nothing until arguments arrive. A multibulk count whose argument array could not fit the limit even if
 * every argument were empty is refused at its header, as Redis refuses one over its own count limit, and so
 * is a negative count other than the null array {@code *-1}. Any violation emits one
 * {@link ProtocolError} and the decoder discards everything after it; the connection replies and closes.
 *
 * <p>Authentication gate: while the connection is unauthenticated, an emitted AUTH or HELLO pauses
 * decoding until {@link #resume()} is called (after that command ran), so the commands pipelined behind it
 * are judged by the limits that apply once it has taken effect. Runs on the channel's event loop only.
 */
public final class RespDecoder extends ByteToMessageDecoder {

    private static final int MAX_LENGTH_LINE = 32;
    /** Every zero-length argument is this one array: a million {@code $0} cost a million references, no more. */
    private static final byte[] EMPTY = new byte[0];

    private final DecoderLimits limits;
    private final BooleanSupplier authenticated;

    /** Arguments of the multibulk in progress, or null between commands; its first {@code argCount} are set. */
    private byte[][] args;
    private int argCount;
    private int argsDeclared;
    /** Heap bytes {@link #args} holds: the array at its capacity plus the payload arrays parsed so far. */
    private long argBytes;
    /** Declared length of the bulk being read, or -1 when its {@code $len} line is still to come. */
    private long bulkLength = -1;
    private boolean failed;
    private boolean paused;
    private ChannelHandlerContext context;

    public RespDecoder(DecoderLimits limits, BooleanSupplier authenticated) {
        this.limits = limits;
        this.authenticated = authenticated;
    }

    /** Bytes this decoder holds: unread input plus the arguments parsed for the command in progress. */
    public long bufferedBytes() {
        ByteBuf cumulation = internalBuffer();
        return (cumulation == null ? 0 : cumulation.readableBytes()) + argBytes;
    }

    public boolean isPaused() {
        return paused;
    }

    /** Continues after a pause for authentication; must run on the event loop. */
    public void resume() {
        if (!paused) {
            return;
        }
        paused = false;
        if (context != null && !context.isRemoved()) {
            try {
                channelRead(context, Unpooled.EMPTY_BUFFER);
                channelReadComplete(context);
            } catch (Exception e) {
                context.fireExceptionCaught(e);
            }
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.context = ctx;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable() && !paused) {
            if (failed) {
                in.skipBytes(in.readableBytes());
                return;
            }
            int before = out.size();
            boolean progressed = args == null ? startCommand(in, out) : continueMultibulk(in, out);
            if (!progressed) {
                return;
            }
            if (out.size() > before && !authenticated.getAsBoolean()
                    && out.getLast() instanceof RespRequest request && changesAuthentication(request)) {
                paused = true;
            }
        }
    }

    private static boolean changesAuthentication(RespRequest request) {
        byte[] name = request.args()[0];
        return equalsIgnoreCase(name, "auth") || equalsIgnoreCase(name, "hello");
    }

    private static boolean equalsIgnoreCase(byte[] bytes, String ascii) {
        if (bytes.length != ascii.length()) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if (Character.toLowerCase((char) (bytes[i] & 0xFF)) != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Reads a multibulk header or an inline line. Returns false when more bytes are needed. */
    private boolean startCommand(ByteBuf in, List<Object> out) {
        if (in.getByte(in.readerIndex()) != '*') {
            return inlineCommand(in, out);
        }
        int eol = findCrlf(in, in.readerIndex() + 1, MAX_LENGTH_LINE);
        if (eol == NOT_YET) {
            return false;
        }
        if (eol == TOO_LONG) {
            return fail(out, "ERR Protocol error: too big mbulk count string");
        }
        long count = parseLength(in, in.readerIndex() + 1, eol);
        // A count of zero or below (*-1 is a null array) is no command; Redis skips it without an error.
        if (count == BAD_NUMBER || count > limits.maxArguments()) {
            return fail(out, "ERR Protocol error: invalid multibulk length");
        }
        boolean preAuth = !authenticated.getAsBoolean();
        if (preAuth && count > limits.preAuthMaxArguments()) {
            return fail(out, "ERR Protocol error: unauthenticated multibulk length");
        }
        in.readerIndex(eol + 2);
        if (count <= 0) {
            return true; // an empty or null multibulk is no command at all; Redis ignores it too
        }
        argsDeclared = (int) count;
        args = new byte[Math.min(argsDeclared, FIRST_CAPACITY)][];
        argCount = 0;
        argBytes = DecoderLimits.argumentArrayCost(args.length);
        bulkLength = -1;
        return true;
    }

    private boolean continueMultibulk(ByteBuf in, List<Object> out) {
        if (bulkLength < 0) {
            byte marker = in.getByte(in.readerIndex());
            if (marker != '$') {
                return fail(out, "ERR Protocol error: expected '$', got '" + printable(marker) + "'");
            }
            int eol = findCrlf(in, in.readerIndex() + 1, MAX_LENGTH_LINE);
            if (eol == NOT_YET) {
                return false;
            }
            if (eol == TOO_LONG) {
                return fail(out, "ERR Protocol error: too big bulk count string");
            }
            long length = parseLength(in, in.readerIndex() + 1, eol);
            if (length == BAD_NUMBER || length < 0 || length > limits.maxBulkLength()) {
                return fail(out, "ERR Protocol error: invalid bulk length");
            }
            if (!authenticated.getAsBoolean() && length > limits.preAuthMaxBulkLength()) {
                return fail(out, "ERR Protocol error: unauthenticated bulk length");
            }
            if (argBytes + DecoderLimits.payloadCost(length) + growthCost() > limits.queryBufferLimit()) {
                return fail(out, "ERR Protocol error: query buffer limit exceeded");
            }
            in.readerIndex(eol + 2);
            bulkLength = length;
        }
        if (in.readableBytes() < bulkLength + 2) {
            if (argBytes + in.readableBytes() > limits.queryBufferLimit()) {
                return fail(out, "ERR Protocol error: query buffer limit exceeded");
            }
            return false;
        }
        int end = in.readerIndex() + (int) bulkLength;
        if (in.getByte(end) != '\r' || in.getByte(end + 1) != '\n') {
            return fail(out, "ERR Protocol error: bulk string not terminated by CRLF");
        }
        byte[] arg = bulkLength == 0 ? EMPTY : new byte[(int) bulkLength];
        copyArgument(in, arg);
        in.skipBytes(2);
        if (argCount == args.length) {
            argBytes += growthCost();
            args = Arrays.copyOf(args, nextCapacity());
        }
        args[argCount++] = arg;
        argBytes += DecoderLimits.payloadCost(arg.length);
        bulkLength = -1;
        if (argCount == argsDeclared) {
            out.add(new RespRequest(args, argBytes));
            args = null;
            argBytes = 0;
        }
        return true;
    }

    private static final int FIRST_CAPACITY = 16;
    /** Arguments up to this long are copied byte by byte out of a direct buffer. */
    private static final int SMALL_ARGUMENT = 64;

    /**
     * Copies the argument at the reader index into {@code arg}. A bulk copy out of Netty's pooled direct
     * buffers allocates a {@code ByteBuffer} view per call, which for the short keys and values of most
     * commands outweighs the argument itself; copying those byte by byte allocates nothing.
     */
    private static void copyArgument(ByteBuf in, byte[] arg) {
        if (arg.length > SMALL_ARGUMENT || in.hasArray()) {
            in.readBytes(arg);
            return;
        }
        int from = in.readerIndex();
        for (int i = 0; i < arg.length; i++) {
            arg[i] = in.getByte(from + i);
        }
        in.readerIndex(from + arg.length);
    }

    private int nextCapacity() {
        return (int) Math.min(argsDeclared, 2L * args.length);
    }

    /** Bytes the argument array gains if the next argument makes it grow, else 0. */
    private long growthCost() {
        return argCount < args.length ? 0 : (long) (nextCapacity() - args.length) * DecoderLimits.REFERENCE_BYTES;
    }

    private boolean inlineCommand(ByteBuf in, List<Object> out) {
        int max = authenticated.getAsBoolean() ? limits.maxInlineLength()
                : Math.min(limits.maxInlineLength(), limits.preAuthMaxBulkLength());
        int searchable = Math.min(in.readableBytes(), max + 1);
        int newline = in.indexOf(in.readerIndex(), in.readerIndex() + searchable, (byte) '\n');
        if (newline < 0) {
            return in.readableBytes() > max ? fail(out, "ERR Protocol error: too big inline request") : false;
        }
        int end = newline;
        if (end > in.readerIndex() && in.getByte(end - 1) == '\r') {
            end--;
        }
        byte[] line = new byte[end - in.readerIndex()];
        in.getBytes(in.readerIndex(), line);
        in.readerIndex(newline + 1);
        List<byte[]> parsed = InlineParser.split(line);
        if (parsed == null) {
            return fail(out, "ERR Protocol error: unbalanced quotes in request");
        }
        if (parsed.isEmpty()) {
            return true; // blank lines are ignored, as telnet users send them
        }
        if (!authenticated.getAsBoolean() && parsed.size() > limits.preAuthMaxArguments()) {
            return fail(out, "ERR Protocol error: unauthenticated multibulk length");
        }
        parsed.replaceAll(argument -> argument.length == 0 ? EMPTY : argument);
        long bytes = DecoderLimits.argumentArrayCost(parsed.size());
        for (byte[] a : parsed) {
            bytes += DecoderLimits.payloadCost(a.length);
        }
        out.add(new RespRequest(parsed.toArray(new byte[0][]), bytes));
        return true;
    }

    private boolean fail(List<Object> out, String message) {
        failed = true;
        args = null;
        argBytes = 0;
        out.add(new ProtocolError(message));
        return true;
    }

    private static final int NOT_YET = -1;
    private static final int TOO_LONG = -2;

    /** Index of the CR of the first CRLF at or after {@code from}, looking at most {@code max} bytes. */
    private static int findCrlf(ByteBuf in, int from, int max) {
        int limit = Math.min(in.writerIndex(), from + max + 1);
        int cr = in.indexOf(from, limit, (byte) '\r');
        if (cr < 0 || cr + 1 >= in.writerIndex()) {
            return in.writerIndex() - from > max ? TOO_LONG : NOT_YET;
        }
        // A CR must be followed by LF; anything else is malformed, reported as a bad number by the caller.
        return cr;
    }

    private static final long BAD_NUMBER = Long.MIN_VALUE;

    /** Parses a decimal length in [from, to), allowing a leading minus; BAD_NUMBER if malformed. */
    private static long parseLength(ByteBuf in, int from, int to) {
        if (from >= to || in.getByte(to + 1) != '\n') {
            return BAD_NUMBER;
        }
        boolean negative = in.getByte(from) == '-';
        int i = negative ? from + 1 : from;
        if (i >= to || to - i > 18) {
            return BAD_NUMBER;
        }
        long value = 0;
        for (; i < to; i++) {
            byte b = in.getByte(i);
            if (b < '0' || b > '9') {
                return BAD_NUMBER;
            }
            value = value * 10 + (b - '0');
        }
        return negative ? -value : value;
    }

    private static String printable(byte b) {
        return b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xFF);
    }
}
