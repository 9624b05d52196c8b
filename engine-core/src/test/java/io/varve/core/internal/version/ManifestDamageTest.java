package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

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
