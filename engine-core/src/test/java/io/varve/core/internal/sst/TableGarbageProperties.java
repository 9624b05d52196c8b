package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.base.Checksums;
import io.varve.core.internal.keys.LookupResult;

import static io.varve.core.internal.sst.TableFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.base.fs.MemFileSystem;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Garbage never gets past the reader as anything but {@link CorruptionException}: not an index error, not
 * an allocation failure, not wrong data.
 */
class TableGarbageProperties {

    private static final Path PATH = DIR.resolve("000013.sst");

    @Property(tries = 300)
    void randomBytesAreNotATable(@ForAll("garbage") byte[] garbage) throws Exception {
        MemFileSystem fs = memFs();
        overwrite(fs, PATH, garbage);
        CorruptionException e = assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null));
        assertEquals(PATH, e.file());
    }

    /** Random bytes behind a well-formed footer (right magic, version and checksum, random handles). */
    @Property(tries = 300)
    void randomBytesBehindAValidFooterAreNotATable(@ForAll("garbage") byte[] body, @ForAll long seed)
            throws Exception {
        Random random = new Random(seed);
        int bodyLength = body.length;
        ByteBuffer footer = ByteBuffer.allocate(TableFormat.FOOTER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int field = 0; field < 6; field++) {
            // Mostly plausible handles inside the body, sometimes wild ones.
            long value = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(bodyLength + 1);
            footer.putLong(field * 8, value);
        }
        footer.putInt(TableFormat.FOOTER_VERSION, TableFormat.FORMAT_VERSION);
        footer.putInt(TableFormat.FOOTER_CHECKSUM,
                Checksums.mask(Checksums.crc32c(footer.array(), 0, TableFormat.FOOTER_CHECKSUM)));
        footer.putLong(TableFormat.FOOTER_MAGIC, TableFormat.MAGIC);
        byte[] file = new byte[bodyLength + TableFormat.FOOTER_SIZE];
        System.arraycopy(body, 0, file, 0, bodyLength);
        System.arraycopy(footer.array(), 0, file, bodyLength, TableFormat.FOOTER_SIZE);
        MemFileSystem fs = memFs();
        overwrite(fs, PATH, file);
        assertThrows(CorruptionException.class, () -> open(fs, PATH, 1, null));
    }

    /**
     * Any byte flipped anywhere in a real table is detected (every byte is under a checksum or the magic),
     * at open or when the damaged block is read, and nothing wrong is returned before that.
     */
    @Property(tries = 200)
    void flippedBytesAnywhereAreDetected(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3) int flips,
                                         @ForAll boolean compression) throws Exception {
        Random random = new Random(seed);
        List<Entry> entries = entriesFor(random);
        MemFileSystem fs = memFs();
        write(fs, PATH, entries, TableOptions.defaults().withBlockSize(256).withCompression(compression));
        byte[] file = readAll(fs, PATH);
        for (int i = 0; i < flips; i++) {
            file[random.nextInt(file.length)] ^= (byte) (1 + random.nextInt(255));
        }
        overwrite(fs, PATH, file);
        TableReader reader;
        try {
            reader = open(fs, PATH, 1, new BlockCache(1 << 20, 1));
        } catch (CorruptionException expected) {
            return;
        }
        try (InternalIterator it = reader.newIterator()) {
            List<Entry> seen = new ArrayList<>();
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    seen.add(current(it));
                }
            });
            assertInstanceOf(CorruptionException.class, e.getCause());
            assertEquals(entries.subList(0, seen.size()), seen);
        } finally {
            reader.release();
        }
    }

    /**
     * Blocks whose contents are damaged but whose checksum was recomputed to match: only the structural
     * checks stand between the damage and the JVM. Every operation must either work or throw corruption.
     */
    @Property(tries = 400)
    void forgedBlocksOnlyEverRaiseCorruption(@ForAll long seed, @ForAll boolean compression) throws Exception {
        Random random = new Random(seed);
        List<Entry> entries = entriesFor(random);
        MemFileSystem fs = memFs();
        write(fs, PATH, entries, TableOptions.defaults().withBlockSize(64 + random.nextInt(400))
                .withRestartInterval(1 + random.nextInt(8)).withCompression(compression));
        byte[] file = readAll(fs, PATH);
        List<long[]> blocks = blockHandles(fs, file);
        long[] victim = blocks.get(random.nextInt(blocks.size()));
        int start = (int) victim[0];
        int size = (int) victim[1];
        if (size == 0) {
            return;
        }
        int damage = 1 + random.nextInt(4);
        for (int i = 0; i < damage; i++) {
            int position = start + random.nextInt(size);
            file[position] = switch (random.nextInt(4)) {
                case 0 -> (byte) 0xFF;            // long varint continuation
                case 1 -> (byte) 0x00;
                case 2 -> (byte) (file[position] + 1);
                default -> (byte) random.nextInt(256);
            };
        }
        // Recompute the block's checksum over contents + type so that only structure checks can catch it.
        int crc = Checksums.mask(Checksums.crc32c(file, start, size + 1));
        ByteBuffer.wrap(file, start + size + 1, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(crc);
        overwrite(fs, PATH, file);

        TableReader reader;
        try {
            reader = open(fs, PATH, 1, random.nextBoolean() ? new BlockCache(1 << 20, 2) : null);
        } catch (CorruptionException expected) {
            return;
        }
        try {
            exerciseEverything(reader, entries, random);
        } finally {
            reader.release();
        }
    }

    /** Runs every read operation, accepting only success or corruption. */
    private static void exerciseEverything(TableReader reader, List<Entry> entries, Random random) {
        try (InternalIterator it = reader.newIterator()) {
            onlyCorruption(() -> {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    current(it);
                }
            });
            onlyCorruption(() -> {
                for (it.seekToLast(); it.valid(); it.prev()) {
                    current(it);
                }
            });
            for (int i = 0; i < 20; i++) {
                Entry probe = entries.get(random.nextInt(entries.size()));
                long trailer = random.nextLong();
                onlyCorruption(() -> {
                    it.seek(segment(probe.userKey()), trailer);
                    for (int step = 0; step < 5 && it.valid(); step++) {
                        current(it);
                        it.next();
                    }
                });
                onlyCorruption(() -> {
                    it.seekForPrev(segment(probe.userKey()), trailer);
                    for (int step = 0; step < 5 && it.valid(); step++) {
                        current(it);
                        it.prev();
                    }
                });
            }
        }
        for (Entry entry : entries) {
            try {
                LookupResult result = reader.get(segment(entry.userKey()), InternalKey.MAX_SEQUENCE);
                if (result.status() == LookupResult.Status.FOUND) {
                    array(result.value());
                }
            } catch (CorruptionException expected) {
                // fine
            }
        }
    }

    private interface Action {
        void run();
    }

    private static void onlyCorruption(Action action) {
        try {
            action.run();
        } catch (UncheckedIOException e) {
            assertInstanceOf(CorruptionException.class, e.getCause());
        }
    }

    /** (offset, size) of every block: data blocks from the index, then the footer's metadata handles. */
    private static List<long[]> blockHandles(MemFileSystem fs, byte[] file) throws Exception {
        List<long[]> handles = new ArrayList<>();
        TableReader reader = open(fs, PATH, 1, null);
        try {
            for (int i = 0; i < reader.dataBlockCount(); i++) {
                handles.add(new long[] {reader.dataBlockOffset(i), reader.dataBlockSize(i)});
            }
        } finally {
            reader.release();
        }
        ByteBuffer footer = ByteBuffer.wrap(file, file.length - TableFormat.FOOTER_SIZE, TableFormat.FOOTER_SIZE)
                .slice().order(ByteOrder.LITTLE_ENDIAN);
        for (int field = 0; field < 3; field++) {
            long size = footer.getLong(field * 16 + 8);
            if (size > 0) {
                handles.add(new long[] {footer.getLong(field * 16), size});
            }
        }
        return handles;
    }

    private static List<Entry> entriesFor(Random random) {
        int count = 1 + random.nextInt(120);
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[random.nextInt(4) == 0 ? random.nextInt(600) : random.nextInt(12)];
            if (random.nextBoolean()) {
                random.nextBytes(value);
            }
            String key = "k" + (char) ('a' + random.nextInt(3)) + String.format("%05d", i);
            for (int version = random.nextInt(3); version >= 0; version--) {
                entries.add(new Entry(bytes(key), InternalKey.trailer(10 + version,
                        random.nextInt(5) == 0 ? io.varve.core.internal.keys.ValueKind.DELETE
                                : io.varve.core.internal.keys.ValueKind.PUT), value));
            }
        }
        entries.sort(ORDER);
        List<Entry> unique = new ArrayList<>();
        for (Entry e : entries) {
            if (unique.isEmpty() || ORDER.compare(unique.getLast(), e) != 0) {
                unique.add(e);
            }
        }
        return unique;
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(5000);
    }
}
