package io.varve.core;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link WriteBatch#forEach} hands back exactly the operations added, in order, also after a clear and reuse. */
class WriteBatchForEachProperties {

    /** One operation as the model keeps it: kind, key, and value or range end (null for a delete). */
    record Op(String kind, List<Byte> key, List<Byte> value) {
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(12);
        Arbitrary<Op> op = Combinators.combine(Arbitraries.of("put", "delete", "range"), bytes, bytes)
                .as((kind, key, value) -> switch (kind) {
                    case "put" -> new Op(kind, boxed(key), boxed(value));
                    case "delete" -> new Op(kind, boxed(key), null);
                    default -> {
                        byte[] end = Arrays.copyOf(key, key.length + 1); // key < key + one byte, always
                        yield new Op(kind, boxed(key), boxed(end));
                    }
                });
        return op.list().ofMaxSize(40);
    }

    @Property(tries = 200)
    void visitsWhatWasAdded(@ForAll("operations") List<Op> first, @ForAll("operations") List<Op> second) {
        WriteBatch batch = new WriteBatch();
        add(batch, first);
        assertEquals(first, visited(batch));
        batch.clear();
        add(batch, second);
        assertEquals(second, visited(batch));
    }

    private static void add(WriteBatch batch, List<Op> ops) {
        for (Op op : ops) {
            switch (op.kind()) {
                case "put" -> batch.put(unboxed(op.key()), unboxed(op.value()));
                case "delete" -> batch.delete(unboxed(op.key()));
                default -> batch.deleteRange(unboxed(op.key()), unboxed(op.value()));
            }
        }
    }

    private static List<Op> visited(WriteBatch batch) {
        List<Op> seen = new ArrayList<>();
        batch.forEach(new WriteBatch.Visitor() {
            @Override
            public void put(String family, byte[] key, byte[] value) {
                assertEquals(WriteBatch.DEFAULT_FAMILY, family);
                seen.add(new Op("put", boxed(key), boxed(value)));
            }

            @Override
            public void delete(String family, byte[] key) {
                assertEquals(WriteBatch.DEFAULT_FAMILY, family);
                seen.add(new Op("delete", boxed(key), null));
            }

            @Override
            public void deleteRange(String family, byte[] begin, byte[] end) {
                assertEquals(WriteBatch.DEFAULT_FAMILY, family);
                seen.add(new Op("range", boxed(begin), boxed(end)));
            }
        });
        return seen;
    }

    private static List<Byte> boxed(byte[] b) {
        List<Byte> list = new ArrayList<>(b.length);
        for (byte x : b) {
            list.add(x);
        }
        return list;
    }

    private static byte[] unboxed(List<Byte> list) {
        byte[] b = new byte[list.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = list.get(i);
        }
        return b;
    }
}
