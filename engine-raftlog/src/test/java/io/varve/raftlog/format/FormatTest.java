package io.varve.raftlog.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.core.base.CorruptionException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The encoder against docs/raftlog-format.md, and footer encode/decode round trips. */
class FormatTest {
    private static final Path FILE = Path.of("/x/0000000000000001.append");

    @Test
    void documentedExampleIsWhatTheEncoderWrites() {
        BatchBuilder b = new BatchBuilder();
        b.addEntries(5, 7, List.of("ab".getBytes(), "c".getBytes()));
        b.put(5, "hs".getBytes(), "x".getBytes());
        byte[] bytes = b.encode(8192).bindTo(LogFileFormat.QUEUE_APPEND, 1);
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        assertEquals("56 52 4C 42 00 00 00 00 05 00 00 00 05 00 00 00 0F 00 00 00",
                hex.formatHex(bytes, 0, 20));
        assertEquals("02 61 62 01 63", hex.formatHex(bytes, 28, 33));
        assertEquals("02 01 05 07 02 00 02 01 04 05 02 68 73 01 78", hex.formatHex(bytes, 33, bytes.length));
        CRC32C crc = new CRC32C();
        crc.update(bytes, 28, 5);
        assertEquals((int) crc.getValue(), ByteSink.getIntLE(bytes, BatchFormat.OFFSET_ENTRIES_CRC));
        crc.reset();
        crc.update(bytes, 0, 24);
        crc.update(bytes, 33, 15);
        assertEquals((int) crc.getValue() ^ BatchFormat.fileBinding(0, 1),
                ByteSink.getIntLE(bytes, BatchFormat.OFFSET_FOOTER_CRC));
    }

    @Test
    void fileHeaderLayout() throws Exception {
        byte[] h = LogFileFormat.encodeHeader(LogFileFormat.QUEUE_REWRITE, 258);
        assertEquals("VARVRLOG", new String(h, 0, 8));
        assertEquals(1, ByteSink.getIntLE(h, 8));
        assertEquals(1, h[12]);
        assertEquals(258, ByteSink.getLongLE(h, 16));
        LogFileFormat.checkHeader(h, FILE, 1, 258);
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 0, 258));
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 1, 259));
        h[3] ^= 1;
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 1, 258));
    }

    @Test
    void bindingsDifferForEveryFileAndQueue() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int q = 0; q <= 1; q++) {
            for (long seq = 1; seq <= 100_000; seq++) {
                assertTrue(seen.add(BatchFormat.fileBinding(q, seq)));
            }
        }
    }

    @Test
    void compressionIsUsedOnlyWhenItPaysAndDecodesBack() throws Exception {
        BatchBuilder b = new BatchBuilder();
        byte[] big = new byte[20_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i % 10);
        }
        b.addEntries(1, 1, List.of(big, "tail".getBytes()));
        byte[] bytes = b.encode(8192).bindTo(0, 1);
        BatchFormat.Header header = BatchFormat.Header.decode(bytes, 0, FILE, 32);
        assertTrue(header.compressed());
        assertTrue(header.storedLength() < 1000);
        byte[] stored = java.util.Arrays.copyOfRange(bytes, 28, 28 + header.storedLength());
        byte[] raw = EntriesBlock.decode(header, stored, FILE, 60);
        int[] starts = ((BatchItem.Entries) b.items().getFirst()).recordStarts();
        assertArrayEquals(big, EntriesBlock.readRecord(raw, starts[0], FILE, 60));
        assertArrayEquals("tail".getBytes(), EntriesBlock.readRecord(raw, starts[1], FILE, 60));
        stored[5] ^= 1;
        assertThrows(CorruptionException.class, () -> EntriesBlock.decode(header, stored, FILE, 60));

        BatchBuilder small = new BatchBuilder();
        small.addEntries(1, 1, List.of(big));
        assertEquals(0, BatchFormat.Header.decode(small.encode(Integer.MAX_VALUE).bindTo(0, 1), 0, FILE, 0).flags());
    }

    @Provide
    Arbitrary<List<BatchItem>> items() {
        Arbitrary<Long> group = Arbitraries.longs();
        Arbitrary<Long> index = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        Arbitrary<BatchItem> item = Arbitraries.oneOf(
                net.jqwik.api.Combinators.combine(group, index).as(BatchItem.Compact::new),
                group.map(BatchItem.Clean::new),
                group.map(BatchItem.ClearState::new),
                net.jqwik.api.Combinators.combine(group, bytes, bytes).as(BatchItem.Put::new),
                net.jqwik.api.Combinators.combine(group, bytes).as(BatchItem.Delete::new),
                net.jqwik.api.Combinators.combine(group, index, Arbitraries.longs().between(0, 1000))
                        .as(BatchItem.Retain::new),
                net.jqwik.api.Combinators.combine(group, index,
                        Arbitraries.integers().between(0, 50).array(int[].class).ofMinSize(1).ofMaxSize(5))
                        .as((g, i, lengths) -> (BatchItem) new BatchItem.Entries(g, i, 3, lengths)));
        return item.list().ofMaxSize(10);
    }

    @Property(tries = 300)
    void footersRoundTrip(@ForAll("items") List<BatchItem> items) throws Exception {
        ByteSink out = new ByteSink(16);
        FooterCodec.encode(items, out);
        List<BatchItem> back = FooterCodec.decode(new ByteCursor(out.array(), 0, out.size(), FILE, 0), 1 << 20);
        assertEquals(items.size(), back.size());
        for (int i = 0; i < items.size(); i++) {
            assertEquals(describe(items.get(i)), describe(back.get(i)));
        }
        // Any truncation is detected, never misread.
        for (int cut = 0; cut < out.size(); cut++) {
            int end = cut;
            assertThrows(CorruptionException.class,
                    () -> FooterCodec.decode(new ByteCursor(out.array(), 0, end, FILE, 0), 1 << 20));
        }
    }

    @Test
    void entriesBeyondTheirBlockAreRejected() {
        ByteSink out = new ByteSink(16);
        FooterCodec.encode(List.of(new BatchItem.Entries(1, 1, 0, new int[] {10, 10})), out);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> FooterCodec.decode(new ByteCursor(out.array(), 0, out.size(), FILE, 100), 21));
        assertTrue(e.getMessage().contains("past the entries block"), e.getMessage());
        assertEquals(101, e.offset());
        assertNotEquals(0, out.size());
    }

    private static String describe(BatchItem item) {
        return switch (item) {
            case BatchItem.Entries e -> "E" + e.group() + "/" + e.firstIndex() + "/" + e.regionStart() + "/"
                    + java.util.Arrays.toString(e.lengths());
            case BatchItem.Put p -> "P" + p.group() + java.util.Arrays.toString(p.key())
                    + java.util.Arrays.toString(p.value());
            case BatchItem.Delete d -> "D" + d.group() + java.util.Arrays.toString(d.key());
            default -> item.toString();
        };
    }
}
