package io.varve.core.internal.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** Generated sequences of writer calls, shared by the round-trip and crash properties. */
final class WalOps {

    private WalOps() {
    }

    /** How a payload is handed to the writer; every form must encode the same bytes. */
    enum Form { HEAP_BUFFER, OFFSET_BUFFER, DIRECT_BUFFER, SEGMENT }

    sealed interface Op permits Append, AppendLeaving, Flush, Sync {
    }

    /** Appends a payload of a given size. */
    record Append(int size, long seed, Form form) implements Op {
    }

    /**
     * Appends a payload sized, at run time, so that the record ends with {@code leave} bytes left in its
     * block: the cases around the header size that random sizes would almost never hit.
     */
    record AppendLeaving(int leave, long seed, Form form) implements Op {
    }

    record Flush() implements Op {
    }

    record Sync() implements Op {
    }

    /** Sizes around block and fragment boundaries, where off-by-one errors live. */
    static final List<Integer> BOUNDARY_SIZES = List.of(
            0, 1, WalFormat.HEADER_SIZE - 1, WalFormat.HEADER_SIZE, WalFormat.HEADER_SIZE + 1,
            WalFormat.MAX_FRAGMENT_LENGTH - 1, WalFormat.MAX_FRAGMENT_LENGTH, WalFormat.MAX_FRAGMENT_LENGTH + 1,
            WalFormat.BLOCK_SIZE - 1, WalFormat.BLOCK_SIZE, WalFormat.BLOCK_SIZE + 1,
            2 * WalFormat.MAX_FRAGMENT_LENGTH, 2 * WalFormat.MAX_FRAGMENT_LENGTH + 1,
            2 * WalFormat.BLOCK_SIZE, 100 * 1024);

    static Arbitrary<Integer> sizes() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.integers().between(0, 64)),
                Tuple.of(3, Arbitraries.integers().between(0, 4096)),
                Tuple.of(2, Arbitraries.integers().between(0, 100 * 1024)),
                Tuple.of(2, Arbitraries.of(BOUNDARY_SIZES)));
    }

    static Arbitrary<Op> ops() {
        Arbitrary<Form> forms = Arbitraries.of(Form.class);
        Arbitrary<Op> append = Combinators.combine(sizes(), Arbitraries.longs(), forms).as(Append::new);
        Arbitrary<Op> leaving = Combinators.combine(
                Arbitraries.integers().between(0, WalFormat.HEADER_SIZE + 1), Arbitraries.longs(), forms)
                .as(AppendLeaving::new);
        return Arbitraries.frequencyOf(
                Tuple.of(10, append),
                Tuple.of(3, leaving),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(2, Arbitraries.just(new Sync())));
    }

    /** The payload an append op writes when the log is {@code logSize} bytes long. */
    static byte[] payloadOf(Op op, long logSize) {
        return switch (op) {
            case Append a -> WalTestSupport.payload(a.size(), a.seed());
            case AppendLeaving a -> WalTestSupport.payload(WalTestSupport.sizeLeaving(logSize, a.leave()), a.seed());
            default -> throw new IllegalArgumentException("not an append: " + op);
        };
    }

    static Form formOf(Op op) {
        return switch (op) {
            case Append a -> a.form();
            case AppendLeaving a -> a.form();
            default -> throw new IllegalArgumentException("not an append: " + op);
        };
    }

    /** Appends {@code payload} in the given form and checks the writer left the caller's buffer alone. */
    static void append(WalWriter writer, byte[] payload, Form form) throws IOException {
        switch (form) {
            case HEAP_BUFFER -> writer.append(ByteBuffer.wrap(payload));
            case OFFSET_BUFFER -> {
                // The payload sits between junk bytes: only position..limit may be written.
                byte[] padded = new byte[payload.length + 9];
                Arrays.fill(padded, (byte) 0x5A);
                System.arraycopy(payload, 0, padded, 4, payload.length);
                ByteBuffer buffer = ByteBuffer.wrap(padded, 4, payload.length);
                writer.append(buffer);
                assertEquals(4, buffer.position(), "append must not move the buffer's position");
                assertEquals(4 + payload.length, buffer.limit());
            }
            case DIRECT_BUFFER -> {
                ByteBuffer buffer = ByteBuffer.allocateDirect(payload.length).put(payload).flip();
                writer.append(buffer);
                assertEquals(0, buffer.position(), "append must not move the buffer's position");
            }
            case SEGMENT -> writer.append(MemorySegment.ofArray(payload));
        }
    }
}
