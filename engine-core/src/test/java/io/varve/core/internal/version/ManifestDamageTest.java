package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.varve.core.internal.version.VersionSetProperties.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Damaged manifests: what recovery accepts and what it reports. */
class ManifestDamageTest {

    private static final Path DIR = Path.of("/vs");

    @Test
    void aTornLastEditIsDroppedButDamageElsewhereIsReported() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        try (VersionSetProperties.Harness h = VersionSetProperties.Harness.open(fs)) {
            for (int i = 0; i < 20; i++) {
                h.versions.logAndApply(new VersionEdit().add(1, table(100 + i, i * 10L, i * 10L + 5)), m -> m);
            }
        }
        long number = Manifest.currentNumber(fs, DIR);
        Path manifest = Manifest.path(DIR, number);
        byte[] bytes = read(fs, manifest);

        // Torn tail: the last edit never finished syncing, so it was never acknowledged.
        write(fs, manifest, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        assertEquals(19, VersionSet.recover(fs, DIR).tables().added().size());

        // A flipped byte in the middle is corruption, named with file and offset.
        byte[] flipped = bytes.clone();
        flipped[bytes.length / 2] ^= 0x21;
        write(fs, manifest, flipped);
        CorruptionException e = assertThrows(CorruptionException.class, () -> VersionSet.recover(fs, DIR));
        assertEquals(manifest.getFileName(), e.file().getFileName());
        assertTrue(e.offset() >= 0 && e.offset() <= bytes.length / 2);
    }

    /**
     * A crash while the last append's sync is under way may keep any part of its record: a prefix, or its
     * whole length with pages inside it zero-filled (MemFileSystem's sector loss). Recovery keeps every synced
     * append and the failed one whole or not at all; a lost page inside a multi-edit record, with later
     * pages of it kept, must not read as damage to synced data.
     */
    @Test
    void aCrashDuringTheLastAppendsSyncKeepsEverySyncedAppend() throws IOException {
        for (int seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            MemFileSystem mem = new MemFileSystem();
            mem.createDirectories(DIR);
            FaultInjectingFileSystem fs = new FaultInjectingFileSystem(mem);
            List<VersionEdit> synced = new ArrayList<>();
            synced.add(new VersionEdit().logNumber(1).nextFileNumber(1_000).lastSequence(0));
            long number = 7;
            Path path = Manifest.path(DIR, number);
            try (Manifest manifest = Manifest.create(fs, DIR, number, List.copyOf(synced))) {
                for (int append = 0; append < 4; append++) {
                    List<VersionEdit> edits = edits(10 + append * 10, 1 + append % 3);
                    manifest.append(edits);
                    synced.addAll(edits);
                }
                // The append's write or its sync fails, and every operation after it.
                fs.failAt(1 + random.nextInt(2), true);
                assertThrows(IOException.class, () -> manifest.append(edits(100, 3)));
            } catch (IOException closingAfterTheFailure) {
                // The writer failed; closing it may report that again.
            }
            mem.crash(random);

            List<VersionEdit> recovered = Manifest.read(mem, DIR, number);
            int kept = recovered.size() - synced.size();
            assertTrue(kept == 0 || kept == 3, "seed " + seed + ": the failed append kept " + kept + " of its 3 edits");
            for (int i = 0; i < synced.size(); i++) {
                assertEquals(synced.get(i).added().size(), recovered.get(i).added().size(), "seed " + seed);
            }
        }
    }

    /**
     * The same lost page, placed: inside the last record it is that append's unfinished sync and drops it
     * whole; inside an earlier record, with a record after it, it is damage to synced data and is refused.
     */
    @Test
    void aLostPageIsATornTailOnlyInTheLastRecord() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        long number = 7;
        Path path = Manifest.path(DIR, number);
        List<Long> recordStarts = new ArrayList<>();
        try (Manifest manifest = Manifest.create(fs, DIR, number,
                List.of(new VersionEdit().logNumber(1).nextFileNumber(1_000).lastSequence(0)))) {
            for (int append = 0; append < 3; append++) {
                recordStarts.add(size(fs, path));
                manifest.append(edits(10 + append * 10, 3));
            }
        }
        byte[] bytes = read(fs, path);
        long last = recordStarts.getLast();
        write(fs, path, withLostSector(bytes, last));
        List<VersionEdit> recovered = Manifest.read(fs, DIR, number);
        assertEquals(1 + 2 * 3, recovered.size(), "the last append is dropped whole");

        long earlier = recordStarts.get(1);
        write(fs, path, withLostSector(bytes, earlier));
        CorruptionException e = assertThrows(CorruptionException.class, () -> Manifest.read(fs, DIR, number));
        assertEquals(path.getFileName(), e.file().getFileName());
        assertEquals(earlier, e.offset());
    }

    /** Zero-fills the first whole 512-byte sector after the header of the record at {@code recordStart}. */
    private static byte[] withLostSector(byte[] bytes, long recordStart) {
        byte[] damaged = bytes.clone();
        int from = (int) ((recordStart + 11 + 511) / 512 * 512);
        java.util.Arrays.fill(damaged, from, from + 512, (byte) 0);
        return damaged;
    }

    private static long size(MemFileSystem fs, Path path) throws IOException {
        try (ReadableFile f = fs.openReadable(path)) {
            return f.size();
        }
    }

    /** {@code count} edits, each adding a table with long keys, so a group record spans several sectors. */
    private static List<VersionEdit> edits(long firstNumber, int count) {
        List<VersionEdit> edits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long number = firstNumber + i;
            byte[] smallest = new byte[300];
            byte[] largest = new byte[300];
            java.util.Arrays.fill(smallest, (byte) number);
            java.util.Arrays.fill(largest, (byte) (number + 1));
            long trailer = InternalKey.trailer(number, ValueKind.PUT);
            edits.add(new VersionEdit().add(1, new TableMeta(number, 1000 + number, smallest, trailer, largest, trailer,
                    number, number, -1)));
        }
        return edits;
    }

    @Test
    void aMissingManifestNamedByCurrentIsReported() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        VersionSetProperties.Harness.open(fs).close();
        fs.delete(Manifest.path(DIR, Manifest.currentNumber(fs, DIR)));
        assertThrows(CorruptionException.class, () -> VersionSet.recover(fs, DIR));
    }

    private static byte[] read(MemFileSystem fs, Path path) throws IOException {
        try (ReadableFile f = fs.openReadable(path)) {
            ByteBuffer b = ByteBuffer.allocate((int) f.size());
            f.readFully(b, 0);
            return b.array();
        }
    }

    private static void write(MemFileSystem fs, Path path, byte[] bytes) throws IOException {
        try (WritableFile f = fs.create(path)) {
            f.write(ByteBuffer.wrap(bytes));
            f.sync();
        }
    }
}
