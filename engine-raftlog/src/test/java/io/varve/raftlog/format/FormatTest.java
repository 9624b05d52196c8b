package io.varve.raftlog.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.varve.base.CorruptionException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The encoder against docs/raftlog-format.md, and whole-batch round trips, truncations and damage. */
class FormatTest {
    private static final Path FILE = Path.of("/x/0000000000000001.append");
    private static final int BINDING = BatchFormat.fileBinding(LogFileFormat.QUEUE_APPEND, 1);

    @Test
    void documentedExampleIsWhatTheEncoderWrites() throws Exception {
        BatchBuilder b = new BatchBuilder();
        b.addEntries(5, 7, List.of("ab".getBytes(), "c".getBytes()));
        b.put(5, "hs".getBytes(), "x".getBytes());
        byte[] bytes = b.encode(8192).bindTo(LogFileFormat.QUEUE_APPEND, 1);
        HexFormat hex = HexFormat.ofDelimiter(" ").withUpperCase();
        assertEquals(25, bytes.length);
        assertEquals("02 0C", hex.formatHex(bytes, 0, 2));
        assertEquals("01 05 07 02 02 01 84 02 68 73 01 78", hex.formatHex(bytes, 10, 22));
        assertEquals("61 62 63", hex.formatHex(bytes, 22, 25));
        CRC32C crc = new CRC32C();
        crc.update(bytes, 22, 3);
        assertEquals((int) crc.getValue(), ByteSink.getIntLE(bytes, 2));
        crc.reset();
        crc.update(bytes, 0, 6);
        crc.update(bytes, 10, 12);
        assertEquals((int) crc.getValue() ^ BINDING, ByteSink.getIntLE(bytes, 6));
    }

    @Test
    void aBatchWithoutEntriesHasNeitherEntriesChecksumNorBlock() throws Exception {
        BatchBuilder b = new BatchBuilder();
        b.compactTo(300, 1000);
        byte[] bytes = b.encode(8192).bindTo(LogFileFormat.QUEUE_APPEND, 1);
        // flags 0, footer length 5, footer checksum, then COMPACT group 300, index 1000.
        assertEquals("00 05", HexFormat.ofDelimiter(" ").withUpperCase().formatHex(bytes, 0, 2));
        assertEquals(BatchFormat.MIN_HEADER_SIZE + 5, bytes.length);
        BatchFrame frame = BatchFrame.decode(bytes, 0, bytes.length, BINDING, FooterCodec.Detail.OFFSETS, FILE, 32);
        assertEquals(List.of(new BatchItem.Compact(300, 1000)), frame.footer().items());
        assertEquals(bytes.length, frame.totalLength());
    }

    @Test
    void fileHeaderLayout() throws Exception {
        byte[] h = LogFileFormat.encodeHeader(LogFileFormat.QUEUE_REWRITE, 258);
        assertEquals("VARVRLOG", new String(h, 0, 8));
        assertEquals(LogFileFormat.VERSION, ByteSink.getIntLE(h, 8));
        assertEquals(1, h[12]);
        assertEquals(258, ByteSink.getLongLE(h, 16));
        LogFileFormat.checkHeader(h, FILE, 1, 258);
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 0, 258));
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 1, 259));
        h[3] ^= 1;
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 1, 258));
    }

    @Test
    void fileHeaderRecordsRecyclingAndThePreviousEnd() throws Exception {
        byte[] h = LogFileFormat.encodeHeader(LogFileFormat.QUEUE_APPEND, 7, true, 123_456_789_012L);
        assertEquals(LogFileFormat.HEADER_SIZE, h.length);
        assertEquals(LogFileFormat.FLAG_RECYCLED, h[LogFileFormat.OFFSET_FLAGS]);
        assertEquals(123_456_789_012L, ByteSink.getLongLE(h, LogFileFormat.OFFSET_PREVIOUS_END));
        assertEquals(new LogFileFormat.FileHeader(LogFileFormat.VERSION, 40, true, 123_456_789_012L),
                LogFileFormat.checkHeader(h, FILE, 0, 7));
        for (int i = 0; i < LogFileFormat.OFFSET_CRC + 4; i++) {
            byte[] damaged = h.clone();
            damaged[i] ^= 0x20;
            assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(damaged, FILE, 0, 7), "byte " + i);
        }
        assertThrows(CorruptionException.class,
                () -> LogFileFormat.checkHeader(java.util.Arrays.copyOf(h, 39), FILE, 0, 7));
    }

    @Test
    void versionTwoHeadersAreStillRead() throws Exception {
        byte[] h = new byte[LogFileFormat.HEADER_SIZE_V2];
        System.arraycopy(LogFileFormat.MAGIC, 0, h, 0, 8);
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_VERSION, 2);
        h[LogFileFormat.OFFSET_QUEUE] = 0;
        ByteSink.putLongLE(h, LogFileFormat.OFFSET_SEQUENCE, 9);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(h, 0, LogFileFormat.OFFSET_CRC_V2);
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_CRC_V2, (int) crc.getValue());
        assertEquals(new LogFileFormat.FileHeader(2, 32, false, 0), LogFileFormat.checkHeader(h, FILE, 0, 9));
        h[LogFileFormat.OFFSET_SEQUENCE] ^= 1;
        assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 0, 9));
    }

    @Test
    void bindingsDifferForEveryFileAndQueue() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int q = 0; q <= 1; q++) {
            for (long seq = 1; seq <= 100_000; seq++) {
                assertTrue(seen.add(BatchFormat.fileBinding(q, seq)));
                assertTrue(seen.add(BatchFormat.afterSyncBinding(BatchFormat.fileBinding(q, seq))));
            }
        }
        java.util.Random random = new java.util.Random(5);
        for (int i = 0; i < 10_000; i++) {
            int x = random.nextInt();
            assertEquals(x, BatchFormat.unfmix32(BatchFormat.fmix32(x)));
        }
    }

    @Test
    void aBatchBoundAfterASyncValidatesAsSuchInItsFileOnly() throws Exception {
        BatchBuilder b = new BatchBuilder();
        b.addEntries(5, 7, java.util.List.of(new byte[] {1, 2}));
        byte[] bytes = b.encode(Integer.MAX_VALUE).bindTo(LogFileFormat.QUEUE_APPEND, 1, true).clone();
        BatchFormat.Header header = BatchFormat.Header.decode(bytes, 0, bytes.length, FILE, 0);
        assertEquals(BatchFrame.AFTER_SYNC, BatchFrame.matchedBinding(bytes, 0, header, BINDING));
        assertEquals(BatchFrame.NO_MATCH, BatchFrame.matchedBinding(bytes, 0, header,
                BatchFormat.fileBinding(LogFileFormat.QUEUE_APPEND, 2)));
        byte[] plain = b.encode(Integer.MAX_VALUE).bindTo(LogFileFormat.QUEUE_APPEND, 1, false);
        assertEquals(BatchFrame.PLAIN, BatchFrame.matchedBinding(plain, 0,
                BatchFormat.Header.decode(plain, 0, plain.length, FILE, 0), BINDING));
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
        BatchFrame frame = BatchFrame.decode(bytes, 0, bytes.length, BINDING, FooterCodec.Detail.OFFSETS, FILE, 32);
        assertTrue(frame.header().compressed());
        assertTrue(frame.storedLength() < 1000);
        assertEquals(bytes.length, frame.totalLength());
        EntriesBlock block = EntriesBlock.decode(frame, bytes, 0, FILE, 32);
        assertArrayEquals(big, block.entry(0));
        assertArrayEquals("tail".getBytes(), block.entry(1));
        assertThrows(CorruptionException.class, () -> block.entry(2));
        bytes[frame.blockStart() + 5] ^= 1;
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> EntriesBlock.decode(frame, bytes, 0, FILE, 32));
        assertEquals(32 + frame.blockStart(), e.offset());

        BatchBuilder small = new BatchBuilder();
        small.addEntries(1, 1, List.of(big));
        byte[] plain = small.encode(Integer.MAX_VALUE).bindTo(0, 1);
        assertEquals(BatchFormat.FLAG_ENTRIES, BatchFormat.Header.decode(plain, 0, plain.length, FILE, 0).flags());
    }

    @Test
    void aLargeBlockWhoseStartDoesNotCompressIsStoredAsItIs() throws Exception {
        byte[] noise = new byte[BatchBuilder.PROBE];
        new java.util.Random(7).nextBytes(noise);
        byte[] zeros = new byte[6 * BatchBuilder.PROBE];
        BatchBuilder b = new BatchBuilder();
        b.addEntries(1, 1, List.of(noise, zeros));
        byte[] bytes = b.encode(8192).bindTo(0, 1);
        assertTrue(!BatchFormat.Header.decode(bytes, 0, bytes.length, FILE, 0).compressed());
        // The same bytes the other way round compress: the probe saw zeros.
        BatchBuilder c = new BatchBuilder();
        c.addEntries(1, 1, List.of(zeros, noise));
        byte[] compressed = c.encode(8192).bindTo(0, 1);
        assertTrue(BatchFormat.Header.decode(compressed, 0, compressed.length, FILE, 0).compressed());
        assertTrue(compressed.length < 2 * BatchBuilder.PROBE, "length " + compressed.length);
    }

    /** What a test batch holds: items to add, in order. */
    sealed interface Add {
    }

    record AddEntries(long group, long first, List<byte[]> entries) implements Add {
    }

    record AddPut(long group, byte[] key, byte[] value) implements Add {
    }

    record AddOther(BatchItem item) implements Add {
    }

    @Provide
    Arbitrary<List<Add>> batches() {
        Arbitrary<Long> group = Arbitraries.oneOf(Arbitraries.longs().between(0, 3), Arbitraries.longs());
        Arbitrary<Long> index = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        Arbitrary<byte[]> payload = Arbitraries.oneOf(bytes, Arbitraries.bytes().array(byte[].class).ofMinSize(100)
                .ofMaxSize(400));
        Arbitrary<Add> add = Arbitraries.oneOf(
                Combinators.combine(group, index, payload.list().ofMinSize(1).ofMaxSize(5)).as(AddEntries::new),
                Combinators.combine(group, bytes, bytes).as(AddPut::new),
                Combinators.combine(group, index).as((g, i) -> new AddOther(new BatchItem.Compact(g, i))),
                group.map(g -> new AddOther(new BatchItem.Clean(g))),
                group.map(g -> new AddOther(new BatchItem.ClearState(g))),
                Combinators.combine(group, bytes).as((g, k) -> new AddOther(new BatchItem.Delete(g, k))),
                Combinators.combine(group, index, Arbitraries.longs().between(0, 1000))
                        .as((g, i, n) -> new AddOther(new BatchItem.Retain(g, i, n))));
        return add.list().ofMinSize(1).ofMaxSize(10);
    }

    private static BatchBuilder build(List<Add> adds) {
        BatchBuilder b = new BatchBuilder();
        for (Add a : adds) {
            switch (a) {
                case AddEntries e -> b.addEntries(e.group(), e.first(), e.entries());
                case AddPut p -> b.put(p.group(), p.key(), p.value());
                case AddOther(BatchItem.Compact c) -> b.compactTo(c.group(), c.index());
                case AddOther(BatchItem.Clean c) -> b.clean(c.group());
                case AddOther(BatchItem.ClearState c) -> b.clearState(c.group());
                case AddOther(BatchItem.Delete d) -> b.delete(d.group(), d.key());
                case AddOther(BatchItem.Retain r) -> b.retain(r.group(), r.first(), r.count());
                case AddOther o -> throw new AssertionError(o);
            }
        }
        return b;
    }

    @Property(tries = 300)
    void batchesRoundTrip(@ForAll("batches") List<Add> adds, @ForAll boolean compress) throws Exception {
        BatchBuilder b = build(adds);
        byte[] bytes = b.encode(compress ? 0 : Integer.MAX_VALUE).bindTo(0, 1);
        BatchFrame frame = BatchFrame.decode(bytes, 0, bytes.length, BINDING, FooterCodec.Detail.OFFSETS, FILE, 32);
        assertEquals(bytes.length, frame.totalLength());
        assertEquals(describe(b.items()), describe(frame.footer().items()));
        EntriesBlock block = EntriesBlock.decode(frame, bytes, 0, FILE, 32);
        List<byte[]> expected = new ArrayList<>();
        adds.forEach(a -> {
            if (a instanceof AddEntries e) {
                expected.addAll(e.entries());
            }
        });
        assertEquals(expected.size(), block.entryCount());
        for (int k = 0; k < expected.size(); k++) {
            assertArrayEquals(expected.get(k), block.entry(k), "entry " + k);
        }
        // Recovery's scanners decode only the totals, and find the same ones.
        FooterCodec.Footer totals = BatchFrame.decode(bytes, 0, bytes.length, BINDING, FooterCodec.Detail.TOTALS, FILE,
                32).footer();
        assertEquals(null, totals.items());
        assertEquals(frame.footer().rawLength(), totals.rawLength());
        assertEquals(expected.size(), totals.entryCount());
        assertEquals(b.items().getLast() instanceof BatchItem.Commit, totals.endsWithCommit());
    }

    /** A merged batch reads back as its members one after the other, entries renumbered in order. */
    @Property(tries = 200)
    void mergedBatchesReadBackAsTheirMembersInOrder(@ForAll("memberLists") List<List<Add>> members) throws Exception {
        BatchMerger.Run run = new BatchMerger.Run();
        List<BatchItem> expectedItems = new ArrayList<>();
        List<byte[]> expectedEntries = new ArrayList<>();
        for (List<Add> adds : members) {
            BatchBuilder b = build(adds);
            EncodedBatch encoded = b.encode(Integer.MAX_VALUE);
            assertTrue(run.tryAdd(encoded));
            for (BatchItem item : encoded.items()) {
                expectedItems.add(item instanceof BatchItem.Entries e ? new BatchItem.Entries(e.group(), e.firstIndex(),
                        e.firstOrdinal() + expectedEntries.size(), e.count()) : item);
            }
            adds.forEach(a -> {
                if (a instanceof AddEntries e) {
                    expectedEntries.addAll(e.entries());
                }
            });
        }
        EncodedBatch merged = run.take();
        assertTrue(run.isEmpty());
        assertEquals(describe(expectedItems), describe(merged.items()));
        byte[] bytes = merged.bindTo(0, 1);
        BatchFrame frame = BatchFrame.decode(bytes, 0, bytes.length, BINDING, FooterCodec.Detail.OFFSETS, FILE, 32);
        assertEquals(bytes.length, frame.totalLength());
        assertEquals(describe(expectedItems), describe(frame.footer().items()));
        EntriesBlock block = EntriesBlock.decode(frame, bytes, 0, FILE, 32);
        assertEquals(expectedEntries.size(), block.entryCount());
        for (int k = 0; k < expectedEntries.size(); k++) {
            assertArrayEquals(expectedEntries.get(k), block.entry(k), "entry " + k);
        }
    }

    @Provide
    Arbitrary<List<List<Add>>> memberLists() {
        return batches().list().ofMinSize(1).ofMaxSize(6);
    }

    @Test
    void compressedOrLargeBatchesAreNotMerged() {
        BatchBuilder big = new BatchBuilder();
        big.addEntries(1, 1, List.of(new byte[BatchMerger.MAX_MEMBER_PART + 1]));
        assertTrue(!new BatchMerger.Run().tryAdd(big.encode(Integer.MAX_VALUE)));
        BatchBuilder bigFooter = new BatchBuilder();
        bigFooter.put(1, "k".getBytes(), new byte[BatchMerger.MAX_MEMBER_PART]);
        assertTrue(!new BatchMerger.Run().tryAdd(bigFooter.encode(Integer.MAX_VALUE)));
        // A merge stops growing at MAX_MERGED_PART of entries.
        BatchMerger.Run run = new BatchMerger.Run();
        int accepted = 0;
        for (int i = 0; i < 10; i++) {
            BatchBuilder member = new BatchBuilder();
            member.addEntries(i, 1, List.of(new byte[BatchMerger.MAX_MEMBER_PART / 2]));
            if (run.tryAdd(member.encode(Integer.MAX_VALUE))) {
                accepted++;
            }
        }
        assertEquals(BatchMerger.MAX_MERGED_PART / (BatchMerger.MAX_MEMBER_PART / 2), accepted);
        BatchBuilder compressed = new BatchBuilder();
        compressed.addEntries(1, 1, List.of(new byte[20_000]));
        assertTrue(!new BatchMerger.Run().tryAdd(compressed.encode(8192)));
    }

    /** Bad input never decodes: every cut and every changed byte is a CorruptionException, never a misread. */
    @Property(tries = 100)
    void truncatedOrDamagedBatchesNeverDecode(@ForAll("batches") List<Add> adds, @ForAll boolean compress)
            throws Exception {
        byte[] bytes = build(adds).encode(compress ? 0 : Integer.MAX_VALUE).bindTo(0, 1);
        for (int cut = 0; cut < bytes.length; cut++) {
            int available = cut;
            assertThrows(CorruptionException.class, () -> decodeWhole(Arrays.copyOf(bytes, available), available));
        }
        for (int at = 0; at < bytes.length; at++) {
            for (int bit : new int[] {0x01, 0x80, 0xFF}) {
                byte[] damaged = bytes.clone();
                damaged[at] ^= (byte) bit;
                assertThrows(CorruptionException.class, () -> decodeWhole(damaged, damaged.length),
                        "byte " + at + " xor " + bit);
            }
        }
        // The same bytes in another file never validate either.
        assertThrows(CorruptionException.class, () -> BatchFrame.decode(bytes, 0, bytes.length,
                BatchFormat.fileBinding(0, 2), FooterCodec.Detail.OFFSETS, FILE, 32));
    }

    private static void decodeWhole(byte[] b, int available) throws CorruptionException {
        BatchFrame frame = BatchFrame.decode(b, 0, available, BINDING, FooterCodec.Detail.OFFSETS, FILE, 32);
        if (frame.totalLength() != available) {
            throw new CorruptionException(FILE, 32, "length " + frame.totalLength() + " vs " + available);
        }
        EntriesBlock block = EntriesBlock.decode(frame, b, 0, FILE, 32);
        for (int k = 0; k < block.entryCount(); k++) {
            block.entry(k);
        }
    }

    @Test
    void aCommitRecordsTheQueuesPositionsAndAVersionThreeCommitIsReadWithout() throws Exception {
        BatchItem.Commit commit = new BatchItem.Commit(7, 123_456_789L, 5, 2);
        BatchBuilder b = new BatchBuilder();
        b.retain(3, 10, 4);
        b.commit(commit);
        byte[] bytes = b.encode(8192).bindTo(LogFileFormat.QUEUE_REWRITE, 1);
        int binding = BatchFormat.fileBinding(LogFileFormat.QUEUE_REWRITE, 1);
        FooterCodec.Footer footer = BatchFrame.decode(bytes, 0, bytes.length, binding, FooterCodec.Detail.ITEMS,
                FILE, 40).footer();
        assertEquals(List.of(new BatchItem.Retain(3, 10, 4), commit), footer.items());
        assertTrue(footer.endsWithCommit());
        // Tag 9, group 0, then the four fields as varints.
        byte[] tail = {0x09, 0x00, 0x07, (byte) 0x95, (byte) 0x9A, (byte) 0xEF, 0x3A, 0x05, 0x02};
        assertArrayEquals(tail, Arrays.copyOfRange(bytes, bytes.length - tail.length, bytes.length));

        // Version 3 wrote a bare commit, type 8: it reads back as one that records nothing.
        byte[] bare = {0x08, 0x00};
        FooterCodec.Footer old = FooterCodec.decode(new ByteCursor(bare, 0, bare.length, FILE, 40),
                FooterCodec.Detail.ITEMS);
        assertEquals(List.of(BatchItem.Commit.UNRECORDED), old.items());
        assertFalse(BatchItem.Commit.UNRECORDED.recorded());
        assertTrue(old.endsWithCommit());
        BatchBuilder again = new BatchBuilder();
        again.commit(BatchItem.Commit.UNRECORDED);
        byte[] encoded = again.encode(8192).bindTo(LogFileFormat.QUEUE_REWRITE, 1);
        assertArrayEquals(bare, Arrays.copyOfRange(encoded, encoded.length - 2, encoded.length));
    }

    @Test
    void versionThreeHeadersAreStillRead() throws Exception {
        byte[] h = LogFileFormat.encodeHeader(LogFileFormat.QUEUE_REWRITE, 4);
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_VERSION, LogFileFormat.VERSION_3);
        CRC32C crc = new CRC32C();
        crc.update(h, 0, LogFileFormat.OFFSET_CRC);
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_CRC, (int) crc.getValue());
        assertEquals(new LogFileFormat.FileHeader(3, 40, false, 0), LogFileFormat.checkHeader(h, FILE, 1, 4));
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_VERSION, 5);
        crc.reset();
        crc.update(h, 0, LogFileFormat.OFFSET_CRC);
        ByteSink.putIntLE(h, LogFileFormat.OFFSET_CRC, (int) crc.getValue());
        CorruptionException e = assertThrows(CorruptionException.class, () -> LogFileFormat.checkHeader(h, FILE, 1, 4));
        assertEquals(LogFileFormat.OFFSET_VERSION, e.offset());
    }

    @Test
    void footerItemsWithBadTagsOrLengthsAreRejected() {
        // SAME_GROUP on the first item.
        assertCorruptFooter(new byte[] {(byte) 0x82}, 100);
        // ONE_ENTRY on a non-entries item.
        assertCorruptFooter(new byte[] {0x42, 0x01}, 100);
        // Unknown modifier bit and unknown type.
        assertCorruptFooter(new byte[] {0x12, 0x01}, 100);
        assertCorruptFooter(new byte[] {0x0A, 0x01}, 100);
        // A commit must name group 0, in both versions.
        assertCorruptFooter(new byte[] {0x08, 0x01}, 100);
        assertCorruptFooter(new byte[] {0x09, 0x01, 0x01, 0x05, 0x01, 0x01}, 100);
        // A commit cut short, and one naming no append file.
        assertCorruptFooter(new byte[] {0x09, 0x00, 0x03, 0x05}, 100);
        assertCorruptFooter(new byte[] {0x09, 0x00, 0x00, 0x05, 0x01, 0x01}, 100);
        // Entries whose lengths add up past the block limit.
        assertCorruptFooter(new byte[] {0x01, 0x01, 0x01, 0x02, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                0x04, 0x01}, 100);
    }

    private static void assertCorruptFooter(byte[] footer, long fileOffset) {
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> FooterCodec.decode(new ByteCursor(footer, 0, footer.length, FILE, fileOffset),
                        FooterCodec.Detail.TOTALS));
        assertTrue(e.offset() >= fileOffset && e.offset() <= fileOffset + footer.length, e.getMessage());
        assertEquals(FILE, e.file());
    }

    private static String describe(List<BatchItem> items) {
        StringBuilder out = new StringBuilder();
        for (BatchItem item : items) {
            out.append(switch (item) {
                case BatchItem.Put p -> "P" + p.group() + Arrays.toString(p.key()) + Arrays.toString(p.value());
                case BatchItem.Delete d -> "D" + d.group() + Arrays.toString(d.key());
                default -> item.toString();
            }).append(';');
        }
        return out.toString();
    }
}
