package io.varve.core.internal.version;

import io.varve.core.internal.keys.InternalIterator;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.sst.TableProperties;
import io.varve.core.internal.sst.TableWriter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table removed from the current version stays mapped and on disk while an older view still uses it, and
 * is unmapped and deleted by the reclaimer once that view is released — never before.
 */
class ReclamationTest {

    private static final Path DIR = Path.of("/r");

    @Test
    void removedTablesLiveUntilTheLastViewThatSawThemIsReleased() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        Reclaimer reclaimer = new Reclaimer("test-reclaimer");
        TableCache cache = new TableCache(fs, ReclamationTest::path, null);
        Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
        VersionSet versions = VersionSet.open(fs, DIR, VersionSet.recover(fs, DIR), new VersionEdit().logNumber(1),
                memtable, reclaimer, cache, ReclamationTest::path, 100);
        memtable.release();
        try {
            TableMeta table = writeTable(fs, 7, "apple", "red");
            versions.logAndApply(new VersionEdit().add(1, table), m -> m);

            ReadView old = versions.acquire();
            InternalIterator it = iterator(cache, old.version().level(1).get(0));
            versions.logAndApply(new VersionEdit().remove(1, 7), m -> m);
            reclaimer.drain();

            // The old view still holds the table: mapped, on disk, readable.
            assertTrue(fs.exists(path(7)));
            it.seekToFirst();
            assertArrayEquals("red".getBytes(), it.value().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            it.close();

            old.release();
            reclaimer.drain();
            // Releasing the view freed the version; the next version death (or this one) deletes the table.
            assertFalse(fs.exists(path(7)), "obsolete table should be deleted once no live version has it");
            assertEquals(0, cache.openCount());
            assertEquals(1, versions.liveVersionCount());
        } finally {
            versions.close();
            reclaimer.close();
            cache.close();
        }
    }

    private static InternalIterator iterator(TableCache cache, TableMeta table) {
        var reader = cache.acquire(table);
        try {
            return reader.newIterator();
        } finally {
            reader.release();
        }
    }

    private static Path path(long number) {
        return DIR.resolve(number + ".sst");
    }

    private static TableMeta writeTable(MemFileSystem fs, long number, String key, String value) throws IOException {
        byte[] k = key.getBytes();
        try (WritableFile file = fs.create(path(number))) {
            TableWriter writer = new TableWriter(file, TableOptions.defaults());
            writer.add(MemorySegment.ofArray(k), InternalKey.trailer(1, ValueKind.PUT), MemorySegment.ofArray(value.getBytes()));
            TableProperties p = writer.finish();
            writer.sync();
            return new TableMeta(number, p.fileSize(), k, p.smallestTrailer(), k, p.largestTrailer(), 1, 1, -1);
        }
    }
}
