package io.varve.core.internal.sst;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.sst.TableOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A pipelined table writer writes the same table as a plain one, byte for byte, except the creation time in
 * the properties block: same data blocks, filter, index and footer, for any entries and options. Tables
 * span from one block to a few hundred, so batches of the pipeline fill, overflow (blocks larger than a
 * batch) and end part-full.
 */
class PipelinedTableWriterProperties {

    private static final Path PLAIN = DIR.resolve("000001.sst");
    private static final Path PIPELINED = DIR.resolve("000002.sst");

    @Property(tries = 100)
    void pipelinedTableIsThePlainTable(@ForAll("entries") List<Entry> entries,
                                       @ForAll("options") TableOptions options) throws Exception {
        MemFileSystem fs = memFs();
        TableProperties plain = write(fs, PLAIN, entries, options);
        TableProperties pipelined;
        try (TableWriter writer = TableWriter.pipelined(fs.create(PIPELINED), options, DIR.toString())) {
            for (Entry e : entries) {
                writer.add(segment(e.userKey()), e.trailer(), segment(e.value()));
            }
            pipelined = writer.finish();
        }

        byte[] a = readAll(fs, PLAIN);
        byte[] b = readAll(fs, PIPELINED);
        assertEquals(a.length, b.length, "file sizes");
        Footer footer = Footer.read(MemorySegment.ofArray(a), PLAIN);
        assertEquals(footer, Footer.read(MemorySegment.ofArray(b), PIPELINED), "footers");
        BlockHandle properties = footer.properties();
        assertArrayEquals(Arrays.copyOfRange(a, 0, (int) properties.offset()),
                Arrays.copyOfRange(b, 0, (int) properties.offset()), "data blocks and filter");
        assertArrayEquals(Arrays.copyOfRange(a, (int) properties.end(), a.length),
                Arrays.copyOfRange(b, (int) properties.end(), b.length), "index block and footer");
        assertEquals(plain.toString(), pipelined.toString(), "counts, key range and sizes");

        TableReader reader = open(fs, PIPELINED, 2, null);
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(entries, scanForward(it));
        } finally {
            reader.release();
        }
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<byte[]> keys = Arbitraries.bytes().between((byte) 'a', (byte) 'h').array(byte[].class)
                .ofMinSize(1).ofMaxSize(12);
        // Mostly small values, a few larger than a batch of the pipeline, so one block overflows a batch.
        Arbitrary<Integer> valueSizes = Arbitraries.frequency(Tuple.of(30, 0), Tuple.of(60, 100),
                Tuple.of(8, 3000), Tuple.of(1, BlockPipeline.BATCH_BYTES + 10));
        Arbitrary<Entry> entry = Combinators.combine(keys, Arbitraries.longs().between(0, 1000),
                        Arbitraries.of(ValueKind.PUT, ValueKind.DELETE), valueSizes, Arbitraries.bytes())
                .as((key, sequence, kind, size, fill) -> {
                    byte[] value = new byte[kind == ValueKind.DELETE ? 0 : size];
                    for (int i = 0; i < value.length; i++) {
                        value[i] = (byte) (i % 7 == 0 ? fill + i : fill); // compresses, but not to nothing
                    }
                    return new Entry(key, InternalKey.trailer(sequence, kind), value);
                });
        return entry.list().ofMinSize(1).ofMaxSize(1500).map(list -> {
            TreeMap<Entry, Entry> sorted = new TreeMap<>(ORDER);
            list.forEach(e -> sorted.put(e, e));
            return new ArrayList<>(sorted.values());
        });
    }

    @Provide
    Arbitrary<TableOptions> options() {
        return Combinators.combine(Arbitraries.of(64, 256, 1024, 4096),
                        Arbitraries.integers().between(1, 16), Arbitraries.of(0, 10),
                        Arbitraries.of(true, false), Arbitraries.of(true, false))
                .as((blockSize, restart, bloom, compression, hashIndex) -> TableOptions.defaults()
                        .withBlockSize(blockSize).withRestartInterval(restart).withBloomBitsPerKey(bloom)
                        .withCompression(compression).withDataBlockHashIndex(hashIndex));
    }
}
