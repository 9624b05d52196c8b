package io.varve.core.internal.sst;

import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Model test: random sorted sets of internal entries are written as tables with random options and read
 * back; every read path must agree with a sorted-list oracle.
 */
class TableModelProperties {

    /** Few distinct bytes, including the extremes, so keys collide, share prefixes and have many versions. */
    private static final byte[] ALPHABET = {0x00, 0x01, 'a', 'b', 0x7F, (byte) 0x80, (byte) 0xFF};

    record Target(byte[] userKey, long trailer) {
        @Override
        public String toString() {
            return java.util.HexFormat.of().formatHex(userKey) + "/" + Long.toHexString(trailer);
        }
    }

    @Property(tries = 250)
    void tableMatchesOracle(@ForAll("entries") List<Entry> entries,
                            @ForAll("options") TableOptions options,
                            @ForAll("targets") List<Target> targets,
                            @ForAll("snapshots") List<Long> snapshots,
                            @ForAll("walks") List<Boolean> walk,
                            @ForAll("caches") int cacheKind) throws Exception {
        MemFileSystem fs = memFs();
        Path path = DIR.resolve("000007.sst");
        TableProperties written = write(fs, path, entries, options);
        checkProperties(written, entries);

        // None; far larger than any generated table (40 keys x 6 versions x 4 KB), so nothing is evicted; or
        // room for a few small blocks, so a scan meets cached blocks and blocks decoded into its own buffer.
        BlockCache cache = switch (cacheKind) {
            case 0 -> null;
            case 1 -> new BlockCache(64 << 20, 4);
            default -> new BlockCache(3 * (BlockCache.ENTRY_OVERHEAD + 300), 1);
        };
        TableReader reader = open(fs, path, 7, cache);
        try {
            checkProperties(reader.properties(), entries);
            assertEquals(written.fileSize(), reader.properties().fileSize());
            checkReads(reader, entries, targets, snapshots, walk);
            if (cacheKind == 1 && reader.properties().compressedDataBlockCount() > 0) {
                long missesBefore = cache.misses();
                try (InternalIterator it = reader.newIterator()) {
                    assertEquals(entries, scanForward(it));
                }
                assertTrue(cache.hits() > 0, "repeat reads of compressed blocks must hit the cache");
                assertEquals(missesBefore, cache.misses(), "a repeat scan within capacity must not miss");
            }
        } finally {
            reader.release();
        }
        assertEquals(0, reader.referenceCount());
    }

    /** A table written at sequence 0 and opened with a global sequence reads as if written at that sequence. */
    @Property(tries = 60)
    void globalSequenceIsPresentedEverywhere(@ForAll("entries") List<Entry> generated,
                                             @ForAll("options") TableOptions options,
                                             @ForAll("targets") List<Target> targets,
                                             @ForAll("snapshots") List<Long> snapshots,
                                             @ForAll("walks") List<Boolean> walk) throws Exception {
        // One entry per user key at sequence 0, like SstFileWriter output.
        List<Entry> stored = new ArrayList<>();
        for (Entry e : generated) {
            if (stored.isEmpty() || !Arrays.equals(stored.getLast().userKey(), e.userKey())) {
                stored.add(new Entry(e.userKey(), e.trailer() & 0xFF, e.value()));
            }
        }
        long global = 5 + generated.size() % 40;
        List<Entry> presented = new ArrayList<>();
        for (Entry e : stored) {
            presented.add(new Entry(e.userKey(), (global << 8) | (e.trailer() & 0xFF), e.value()));
        }
        MemFileSystem fs = memFs();
        Path path = DIR.resolve("000009.sst");
        write(fs, path, stored, options);
        TableReader reader = TableReader.open(fs.openReadable(path), path, 9, null, global);
        try {
            assertEquals(global, reader.globalSequence());
            checkReads(reader, presented, targets, snapshots, walk);
        } finally {
            reader.release();
        }
    }

    static void checkProperties(TableProperties p, List<Entry> entries) {
        assertEquals(entries.size(), p.entryCount());
        assertEquals(entries.stream().filter(e -> !e.isPut() && !e.isMerge()).count(), p.deletionCount());
        assertArrayEquals(entries.getFirst().userKey(), p.smallestUserKey());
        assertEquals(entries.getFirst().trailer(), p.smallestTrailer());
        assertArrayEquals(entries.getLast().userKey(), p.largestUserKey());
        assertEquals(entries.getLast().trailer(), p.largestTrailer());
        assertEquals(entries.stream().mapToLong(Entry::sequence).min().orElseThrow(), p.smallestSequence());
        assertEquals(entries.stream().mapToLong(Entry::sequence).max().orElseThrow(), p.largestSequence());
        assertEquals(entries.stream().mapToLong(e -> e.userKey().length + 8L).sum(), p.rawKeyBytes());
        assertEquals(entries.stream().mapToLong(e -> e.value().length).sum(), p.rawValueBytes());
        assertTrue(p.dataBlockCount() >= 1 && p.compressedDataBlockCount() <= p.dataBlockCount());
    }

    static void checkReads(TableReader reader, List<Entry> oracle, List<Target> targets, List<Long> snapshots,
                           List<Boolean> walk) throws Exception {
        try (InternalIterator it = reader.newIterator()) {
            assertEquals(oracle, scanForward(it));
            List<Entry> reversed = new ArrayList<>(oracle);
            Collections.reverse(reversed);
            assertEquals(reversed, scanBackward(it));

            for (Target target : targets) {
                int expected = lowerBound(oracle, target.userKey(), target.trailer());
                it.seek(segment(target.userKey()), target.trailer());
                checkPosition(it, oracle, expected, "seek " + target);
                walkAndCheck(it, oracle, expected, walk, "after seek " + target);

                int atOrBefore = expected < oracle.size()
                        && compare(oracle.get(expected).userKey(), oracle.get(expected).trailer(),
                                target.userKey(), target.trailer()) == 0 ? expected : expected - 1;
                it.seekForPrev(segment(target.userKey()), target.trailer());
                checkPosition(it, oracle, atOrBefore, "seekForPrev " + target);
                walkAndCheck(it, oracle, atOrBefore, walk, "after seekForPrev " + target);
            }
        }

        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        targets.forEach(t -> keys.add(t.userKey()));
        oracle.forEach(e -> keys.add(e.userKey()));
        LookupResult result = new LookupResult();
        for (byte[] key : keys) {
            for (long snapshot : snapshots) {
                reader.get(segment(key), snapshot, result);
                Entry expected = visible(oracle, key, snapshot);
                String what = "get " + java.util.HexFormat.of().formatHex(key) + " at " + snapshot;
                if (expected == null) {
                    assertEquals(LookupResult.Status.NOT_FOUND, result.status(), what);
                } else if (expected.isPut() || expected.isMerge()) {
                    assertEquals(expected.isPut() ? LookupResult.Status.FOUND : LookupResult.Status.MERGE,
                            result.status(), what);
                    assertEquals(expected.trailer(), result.trailer(), what);
                    assertArrayEquals(expected.value(), array(result.value()), what);
                } else {
                    assertEquals(LookupResult.Status.DELETED, result.status(), what);
                    assertEquals(expected.sequence(), result.sequence(), what);
                }
                if (expected != null) {
                    assertTrue(reader.mayContain(segment(key)), "no false negatives: " + what);
                }
            }
        }
    }

    private static void checkPosition(InternalIterator it, List<Entry> oracle, int expected, String what) {
        if (expected < 0 || expected >= oracle.size()) {
            assertFalse(it.valid(), what + ": expected no entry");
        } else {
            assertTrue(it.valid(), what + ": expected " + oracle.get(expected));
            assertEquals(oracle.get(expected), current(it), what);
        }
    }

    /** Moves next (true) or prev (false) in step with the oracle, switching direction freely. */
    private static void walkAndCheck(InternalIterator it, List<Entry> oracle, int position, List<Boolean> walk,
                                     String what) {
        for (int step = 0; step < walk.size() && position >= 0 && position < oracle.size(); step++) {
            if (walk.get(step)) {
                it.next();
                position++;
            } else {
                it.prev();
                position--;
            }
            checkPosition(it, oracle, position, what + ", step " + step);
        }
    }

    // ---- Generators ------------------------------------------------------------------------------------

    private static Arbitrary<byte[]> userKeys() {
        return Arbitraries.integers().between(0, ALPHABET.length - 1).list().ofMaxSize(4).map(indexes -> {
            byte[] key = new byte[indexes.size()];
            for (int i = 0; i < key.length; i++) {
                key[i] = ALPHABET[indexes.get(i)];
            }
            return key;
        });
    }

    @SuppressWarnings("unchecked")
    private static Arbitrary<byte[]> values() {
        Arbitrary<byte[]> compressible = Combinators.combine(
                Arbitraries.integers().between(1, 4000), Arbitraries.bytes())
                .as((length, fill) -> {
                    byte[] v = new byte[length];
                    for (int i = 0; i < length; i++) {
                        v[i] = (byte) (fill + (i / 64));
                    }
                    return v;
                });
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(new byte[0])),
                Tuple.of(5, Arbitraries.bytes().array(byte[].class).ofMaxSize(24)),
                Tuple.of(2, compressible),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMinSize(100).ofMaxSize(3000)));
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<Entry> version = Combinators.combine(userKeys(), Arbitraries.longs().between(0, 60),
                        Arbitraries.of(ValueKind.DELETE, ValueKind.PUT), values())
                .as((key, sequence, kind, value) -> new Entry(key, InternalKey.trailer(sequence, kind),
                        kind != ValueKind.DELETE ? value : new byte[0]));
        // Many versions per key: pick a key, then several versions of it.
        Arbitrary<List<Entry>> versionsOfOneKey = Combinators.combine(userKeys(), version.list().ofMinSize(1)
                        .ofMaxSize(6).withSizeDistribution(RandomDistribution.uniform()))
                .as((key, versions) -> versions.stream()
                        .map(v -> new Entry(key, v.trailer(), v.value())).toList());
        return versionsOfOneKey.list().ofMinSize(1).ofMaxSize(40)
                .withSizeDistribution(RandomDistribution.uniform()).map(groups -> {
            List<Entry> all = new ArrayList<>();
            groups.forEach(all::addAll);
            all.sort(ORDER);
            List<Entry> unique = new ArrayList<>();
            for (Entry e : all) {
                if (unique.isEmpty() || ORDER.compare(unique.getLast(), e) != 0) {
                    unique.add(e);
                }
            }
            return unique;
        });
    }

    /** 0: no block cache; 1: a cache larger than any table; 2: a cache with room for a few small blocks. */
    @Provide
    Arbitrary<Integer> caches() {
        return Arbitraries.of(0, 1, 2);
    }

    @Provide
    Arbitrary<TableOptions> options() {
        return Combinators.combine(Arbitraries.of(64, 64, 100, 256, 1024, 4096),
                        Arbitraries.integers().between(1, 16), Arbitraries.of(0, 1, 10),
                        Arbitraries.of(true, false), Arbitraries.of(true, false))
                .as((blockSize, restart, bloom, compression, hashIndex) -> TableOptions.defaults()
                        .withBlockSize(blockSize).withRestartInterval(restart).withBloomBitsPerKey(bloom)
                        .withCompression(compression).withDataBlockHashIndex(hashIndex));
    }

    @Provide
    @SuppressWarnings("unchecked")
    Arbitrary<List<Target>> targets() {
        Arbitrary<Long> trailers = Arbitraries.frequencyOf(
                Tuple.of(6, Combinators.combine(Arbitraries.longs().between(0, 70), Arbitraries.of(0, 1, 0xFF))
                        .as((sequence, kind) -> (sequence << 8) | kind)),
                Tuple.of(1, Arbitraries.of(-1L, 0L, InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE))));
        return Combinators.combine(userKeys(), trailers).as(Target::new).list().ofMinSize(1).ofMaxSize(25);
    }

    @Provide
    @SuppressWarnings("unchecked")
    Arbitrary<List<Long>> snapshots() {
        return Arbitraries.frequencyOf(
                        Tuple.of(8, Arbitraries.longs().between(0, 70)),
                        Tuple.of(1, Arbitraries.just(InternalKey.MAX_SEQUENCE)))
                .list().ofMinSize(1).ofMaxSize(6);
    }

    @Provide
    Arbitrary<List<Boolean>> walks() {
        return Arbitraries.of(true, false).list().ofMaxSize(12);
    }
}
