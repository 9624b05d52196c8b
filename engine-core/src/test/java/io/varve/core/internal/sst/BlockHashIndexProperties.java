package io.varve.core.internal.sst;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.constraints.IntRange;

/**
 * Model test of a data block's hash index: a seek that follows the index lands where the sorted-list oracle
 * says, for keys in the block and keys not in it, with the buckets as written and with buckets rewritten to
 * any value a well-formed block may hold (a damaged index must never change an answer), and a bucket naming
 * a restart point the block does not have is corruption at the block's offset.
 */
class BlockHashIndexProperties {

    private static final Path FILE = Path.of("/db/000003.sst");
    private static final long BLOCK_OFFSET = 4242;
    private static final byte[] ALPHABET = {0x00, 'a', 'b', (byte) 0xFF};

    @Property(tries = 300)
    void seeksThroughTheIndexMatchTheOracle(@ForAll("entries") List<Entry> entries,
                                            @ForAll @IntRange(min = 1, max = 16) int restartInterval,
                                            @ForAll("targets") List<Entry> targets,
                                            @ForAll long damageSeed) throws CorruptionException {
        byte[] contents = build(entries, restartInterval);
        Block block = Block.parseWithHashIndex(MemorySegment.ofArray(contents), FILE, BLOCK_OFFSET);
        checkSeeks(block, entries, targets, true);

        // Any bucket values a well-formed block may hold: answers stay the same, only the work changes.
        if (block.hasHashIndex()) {
            Random random = new Random(damageSeed);
            byte[] damaged = contents.clone();
            int buckets = bucketCount(damaged);
            for (int i = 0; i < buckets; i++) {
                int choice = random.nextInt(block.restartCount + 2);
                damaged[bucketsStart(damaged) + i] = (byte) (choice < block.restartCount ? choice
                        : choice == block.restartCount ? TableFormat.HASH_BUCKET_COLLISION
                        : TableFormat.HASH_BUCKET_EMPTY);
            }
            Block rewritten = Block.parseWithHashIndex(MemorySegment.ofArray(damaged), FILE, BLOCK_OFFSET);
            checkSeeks(rewritten, entries, targets, false);
        }
    }

    @Property(tries = 200)
    void aBucketNamingAMissingRestartIsCorruptionAtTheBlock(@ForAll("entries") List<Entry> entries,
                                                             @ForAll @IntRange(min = 1, max = 16) int restartInterval,
                                                             @ForAll long seed) {
        byte[] contents = build(entries, restartInterval);
        int buckets = bucketCount(contents);
        int restarts = (entries.size() + restartInterval - 1) / restartInterval;
        if (buckets == 0 || restarts >= TableFormat.HASH_BUCKET_COLLISION) {
            return;
        }
        Random random = new Random(seed);
        contents[bucketsStart(contents) + random.nextInt(buckets)] =
                (byte) (restarts + random.nextInt(TableFormat.HASH_BUCKET_COLLISION - restarts));
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> Block.parseWithHashIndex(MemorySegment.ofArray(contents), FILE, BLOCK_OFFSET));
        assertEquals(FILE, e.file());
        assertEquals(BLOCK_OFFSET, e.offset());
    }

    @Property(tries = 100)
    void aBucketCountLargerThanTheBlockIsCorruption(@ForAll("entries") List<Entry> entries,
                                                     @ForAll @IntRange(min = 1, max = 16) int restartInterval) {
        byte[] contents = build(entries, restartInterval);
        int impossible = contents.length - TableFormat.HASH_INDEX_COUNT_SIZE - TableFormat.RESTART_ENTRY_SIZE + 1;
        contents[contents.length - 2] = (byte) impossible;
        contents[contents.length - 1] = (byte) (impossible >>> 8);
        CorruptionException e = assertThrows(CorruptionException.class,
                () -> Block.parseWithHashIndex(MemorySegment.ofArray(contents), FILE, BLOCK_OFFSET));
        assertEquals(BLOCK_OFFSET, e.offset());
    }

    /** The first entry at or after each target, by the index (with its hint) and by plain binary search. */
    private static void checkSeeks(Block block, List<Entry> entries, List<Entry> targets, boolean asWritten)
            throws CorruptionException {
        BlockIterator cursor = new BlockIterator(TableReader.NO_GLOBAL_SEQUENCE, true);
        List<Entry> probes = new ArrayList<>(targets);
        for (Entry e : entries) {
            probes.add(e);
            probes.add(new Entry(e.userKey(), InternalKey.seekTrailer(InternalKey.MAX_SEQUENCE), new byte[0]));
        }
        for (Entry target : probes) {
            cursor.reset(block);
            long hash = KeyHash.hash64(target.userKey());
            int hint = block.restartHint(hash);
            cursor.seek(segment(target.userKey()), target.trailer(), hint);
            int expected = lowerBound(entries, target.userKey(), target.trailer());
            String what = "seek " + target + " with hint " + hint + (asWritten ? "" : " (rewritten buckets)");
            if (expected == entries.size()) {
                assertFalse(cursor.valid(), what);
            } else {
                assertTrue(cursor.valid(), what);
                Entry found = new Entry(array(cursor.userKey()), cursor.trailer(), array(cursor.value()));
                assertEquals(entries.get(expected), found, what);
            }
        }
    }

    /** Distinct keys, one version each: the index as written sends many straight to their interval. */
    @Example
    void mostKeysOfAPlainBlockGetTheirInterval() throws CorruptionException {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            entries.add(Entry.put(String.format("key-%04d", i), 7, "v"));
        }
        int restartInterval = 4;
        Block block = Block.parseWithHashIndex(MemorySegment.ofArray(build(entries, restartInterval)), FILE,
                BLOCK_OFFSET);
        int hinted = 0;
        for (int i = 0; i < entries.size(); i++) {
            int hint = block.restartHint(KeyHash.hash64(entries.get(i).userKey()));
            if (hint >= 0) {
                assertEquals(i / restartInterval, hint, "key " + i);
                hinted++;
            }
        }
        // A key loses its hint when a key of another interval shares its bucket: at 0.75 keys per bucket and
        // 25 intervals, about half keep it.
        assertTrue(hinted >= 30, hinted + " of 100 keys hinted");
    }

    /** Builds one data block with a hash index, as a version-3 table writes it. */
    static byte[] build(List<Entry> entries, int restartInterval) {
        BlockBuilder builder = new BlockBuilder(restartInterval, 4096, true);
        for (Entry e : entries) {
            byte[] key = new byte[e.userKey().length + TableFormat.KEY_TRAILER_SIZE];
            System.arraycopy(e.userKey(), 0, key, 0, e.userKey().length);
            InternalKeys.writeTrailer(key, e.userKey().length, e.trailer());
            builder.add(key, key.length, MemorySegment.ofArray(e.value()), KeyHash.hash64(e.userKey()));
        }
        return builder.finish().toArray();
    }

    static int bucketCount(byte[] contents) {
        return (contents[contents.length - 2] & 0xFF) | (contents[contents.length - 1] & 0xFF) << 8;
    }

    static int bucketsStart(byte[] contents) {
        return contents.length - TableFormat.HASH_INDEX_COUNT_SIZE - bucketCount(contents);
    }

    // ---- Generators ------------------------------------------------------------------------------------

    private static Arbitrary<byte[]> userKeys() {
        return Arbitraries.integers().between(0, ALPHABET.length - 1).list().ofMaxSize(5).map(indexes -> {
            byte[] key = new byte[indexes.size()];
            for (int i = 0; i < key.length; i++) {
                key[i] = ALPHABET[indexes.get(i)];
            }
            return key;
        });
    }

    @Provide
    Arbitrary<List<Entry>> entries() {
        Arbitrary<Entry> entry = Combinators.combine(userKeys(), Arbitraries.longs().between(0, 20),
                        Arbitraries.of(ValueKind.DELETE, ValueKind.PUT),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(6))
                .as((key, sequence, kind, value) -> new Entry(key, InternalKey.trailer(sequence, kind),
                        kind == ValueKind.PUT ? value : new byte[0]));
        // Up to 600 entries, so that a restart interval of 1 sometimes passes the 254 restarts a bucket can name.
        return entry.list().ofMinSize(1).ofMaxSize(600).withSizeDistribution(RandomDistribution.biased())
                .map(list -> {
                    List<Entry> sorted = new ArrayList<>(list);
                    sorted.sort(ORDER);
                    List<Entry> unique = new ArrayList<>();
                    for (Entry e : sorted) {
                        if (unique.isEmpty() || ORDER.compare(unique.getLast(), e) != 0) {
                            unique.add(e);
                        }
                    }
                    return unique;
                });
    }

    @Provide
    Arbitrary<List<Entry>> targets() {
        Arbitrary<Long> trailers = Combinators.combine(Arbitraries.longs().between(0, 22), Arbitraries.of(0, 1, 0xFF))
                .as((sequence, kind) -> (sequence << 8) | kind);
        return Combinators.combine(userKeys(), trailers).as((key, trailer) -> new Entry(key, trailer, new byte[0]))
                .list().ofMaxSize(30);
    }
}
