package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Commands decode to the operations they were encoded from; damaged ones are refused, never misread. */
class CommandCodecProperties {

    @Provide
    Arbitrary<ReplicatedBatch.Op> op() {
        Arbitrary<String> family = Arbitraries.of(ReplicatedBatch.DEFAULT_FAMILY, "a", "fam\u00e9ily", "z");
        Arbitrary<byte[]> key = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
        Arbitrary<byte[]> value = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).injectNull(0.3);
        return Combinators.combine(family, key, value).as(ReplicatedBatch.Op::new);
    }

    @Provide
    Arbitrary<List<ReplicatedBatch.Op>> ops() {
        return op().list().ofMaxSize(30);
    }

    @Provide
    Arbitrary<List<ReplicatedBatch.Op>> someOps() {
        return op().list().ofMinSize(1).ofMaxSize(10);
    }

    private static ReplicatedBatch batchOf(List<ReplicatedBatch.Op> ops) {
        ReplicatedBatch batch = new ReplicatedBatch();
        for (ReplicatedBatch.Op op : ops) {
            if (op.value() == null) {
                batch.delete(op.family(), op.key());
            } else {
                batch.put(op.family(), op.key(), op.value());
            }
        }
        return batch;
    }

    @Property(tries = 200)
    void roundTrips(@ForAll("ops") List<ReplicatedBatch.Op> ops) {
        List<ReplicatedBatch.Op> decoded = CommandCodec.decode(CommandCodec.encode(batchOf(ops)));
        assertEquals(ops.size(), decoded.size());
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(ops.get(i).family(), decoded.get(i).family());
            assertArrayEquals(ops.get(i).key(), decoded.get(i).key());
            assertArrayEquals(ops.get(i).value(), decoded.get(i).value());
        }
    }

    @Property(tries = 200)
    void everyTruncationIsRefused(@ForAll("someOps") List<ReplicatedBatch.Op> ops) {
        byte[] encoded = CommandCodec.encode(batchOf(ops));
        for (int length = 0; length < encoded.length; length++) {
            byte[] cut = Arrays.copyOf(encoded, length);
            assertThrows(IllegalArgumentException.class, () -> CommandCodec.decode(cut), "length " + length);
        }
        byte[] longer = Arrays.copyOf(encoded, encoded.length + 1);
        assertThrows(IllegalArgumentException.class, () -> CommandCodec.decode(longer));
    }

    @Property(tries = 300)
    void arbitraryBytesDecodeOrFailCleanly(@ForAll @Size(max = 64) byte[] junk) {
        try {
            List<ReplicatedBatch.Op> ops = CommandCodec.decode(junk);
            // Whatever decodes must encode back to the same operations.
            assertEquals(ops.size(), CommandCodec.decode(CommandCodec.encode(batchOf(ops))).size());
        } catch (IllegalArgumentException expected) {
            // refused: the state machine stops the node instead of applying it
        }
    }
}
