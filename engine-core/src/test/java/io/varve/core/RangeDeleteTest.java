package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Range deletions: their cost in the log, argument checks, ingestion ordering and crash recovery. */
class RangeDeleteTest {

    private static final Path DIR = Path.of("/rangedel");

    @Test
    void deletingARangeOfManyKeysLogsTheSameBytesAsDeletingAnEmptyRange() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 20);
        long emptyRangeBytes;
        try (Db db = Db.open(Path.of("/empty"), options)) {
            long before = logBytes(fs, Path.of("/empty"));
            db.deleteRange(bytes("key000000"), bytes("key999999"));
            emptyRangeBytes = logBytes(fs, Path.of("/empty")) - before;
        }
        try (Db db = Db.open(DIR, options)) {
            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < 100_000; i++) {
                batch.put(bytes(String.format("key%06d", i)), bytes("v"));
                if (batch.count() == 10_000) {
                    db.write(batch, WriteOptions.DEFAULT);
                    batch = new WriteBatch();
                }
            }
            long before = logBytes(fs, DIR);
            db.deleteRange(bytes("key000000"), bytes("key999999"));
            assertEquals(emptyRangeBytes, logBytes(fs, DIR) - before, "a range deletion is one record");
            assertNull(db.get(bytes("key054321")));
            try (DbIterator it = db.iterator()) {
                it.seekToFirst();
                assertTrue(!it.valid(), "every key is deleted");
            }
        }
    }

    @Test
    void aRangeThatIsEmptyOrBackwardsIsRefused() throws IOException {
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(new MemFileSystem()))) {
            assertThrows(IllegalArgumentException.class, () -> db.deleteRange(bytes("b"), bytes("b")));
            assertThrows(IllegalArgumentException.class, () -> db.deleteRange(bytes("c"), bytes("b")));
            assertThrows(IllegalArgumentException.class, () -> new WriteBatch().deleteRange(bytes("c"), bytes("b")));
        }
    }

    @Test
    void anIngestedTableIsNewerThanARangeDeletionInTheMemtable() throws IOException {
        MemFileSystem fs = new MemFileSystem();
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(fs))) {
            db.put(bytes("a"), bytes("old"));
            db.deleteRange(bytes("a"), bytes("z"));
            TreeMap<String, String> entries = new TreeMap<>();
            entries.put("a", "ingested");
            entries.put("m", "ingested");
            fs.createDirectories(Path.of("/ext"));
            Path file = IngestFixtures.external(fs, Path.of("/ext/f.sst"), "default", entries);
            db.ingestExternalFiles(List.of(file), IngestOptions.defaults());
            assertEquals("ingested", new String(db.get(bytes("a")), StandardCharsets.UTF_8));
            assertEquals("ingested", new String(db.get(bytes("m")), StandardCharsets.UTF_8));
            db.deleteRange(bytes("m"), bytes("n"));
            assertNull(db.get(bytes("m")), "a range deletion after the ingestion hides its keys");
            db.flush();
            db.compactRange(null, null);
            assertEquals("ingested", new String(db.get(bytes("a")), StandardCharsets.UTF_8));
            assertNull(db.get(bytes("m")));
        }
    }

    @Test
    void compactingToTheBottomDropsCoveredKeysAndTheTombstone() throws IOException {
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(new MemFileSystem()))) {
            for (int i = 0; i < 1000; i++) {
                db.put(bytes(String.format("k%04d", i)), bytes("v"));
            }
            db.put(bytes("z"), bytes("kept"));
            db.flush();
            db.deleteRange(bytes("k"), bytes("l"));
            db.flush();
            db.compactRange(null, null);
            Version version = DbTestAccess.currentVersion(db);
            try {
                assertEquals(1, version.tableCount(), "one table left");
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (TableMeta table : version.level(level)) {
                        assertEquals("z", new String(table.smallestKey(), StandardCharsets.UTF_8),
                                "only the key outside the range survives, with no tombstone widening the table");
                    }
                }
            } finally {
                version.release();
            }
            assertEquals("kept", new String(db.get(bytes("z")), StandardCharsets.UTF_8));
            assertNull(db.get(bytes("k0500")));
        }
    }

    @Test
    void aSnapshotKeepsTheKeysATombstoneCoversThroughCompaction() throws IOException {
        try (Db db = Db.open(DIR, Options.defaults().withFileSystem(new MemFileSystem()))) {
            db.put(bytes("k1"), bytes("v1"));
            Snapshot before = db.snapshot();
            db.deleteRange(bytes("k"), bytes("l"));
            db.flush();
            db.compactRange(null, null);
            assertNull(db.get(bytes("k1")));
            assertEquals("v1", new String(db.get(ReadOptions.at(before), bytes("k1")), StandardCharsets.UTF_8));
            before.close();
            db.compactRange(null, null);
            assertNull(db.get(bytes("k1")));
        }
    }

    /**
     * Random batches of puts, deletes and range deletions, some synced, some followed by a flush, then a
     * simulated machine crash: the recovered database equals the model after some prefix of the writes that
     * holds every synced one.
     */
    @Property(tries = 60)
    void aCrashRecoversAPrefixOfTheRangeDeletions(@ForAll long seed) throws IOException {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
        List<TreeMap<String, String>> states = new ArrayList<>();
        TreeMap<String, String> model = new TreeMap<>();
        states.add(new TreeMap<>(model));
        int lastDurable = 0;
        Db db = Db.open(DIR, options);
        int writes = 1 + random.nextInt(30);
        for (int i = 0; i < writes; i++) {
            WriteBatch batch = new WriteBatch();
            for (int op = 0, ops = 1 + random.nextInt(3); op < ops; op++) {
                String key = key(random.nextInt(20));
                switch (random.nextInt(4)) {
                    case 0 -> {
                        String end = key(Integer.parseInt(key.substring(1)) + 1 + random.nextInt(6));
                        batch.deleteRange(bytes(key), bytes(end));
                        model.subMap(key, end).clear();
                    }
                    case 1 -> {
                        batch.delete(bytes(key));
                        model.remove(key);
                    }
                    default -> {
                        batch.put(bytes(key), bytes("v" + i));
                        model.put(key, "v" + i);
                    }
                }
            }
            boolean sync = random.nextInt(3) == 0;
            db.write(batch, sync ? WriteOptions.SYNC : WriteOptions.DEFAULT);
            states.add(new TreeMap<>(model));
            if (sync) {
                lastDurable = states.size() - 1;
            }
            if (random.nextInt(8) == 0) {
                db.flush();
                lastDurable = states.size() - 1;
            }
        }
        fs.crash(random);
        try {
            db.close();
        } catch (RuntimeException expected) {
            // The crashed instance's handles are dead; closing may fail to sync.
        }
        try (Db reopened = Db.open(DIR, options)) {
            TreeMap<String, String> recovered = contents(reopened);
            boolean matches = false;
            for (int i = lastDurable; i < states.size() && !matches; i++) {
                matches = states.get(i).equals(recovered);
            }
            assertTrue(matches, "recovered " + recovered + " is no state from write " + lastDurable + " on");
            for (int k = 0; k < 26; k++) {
                byte[] value = reopened.get(bytes(key(k)));
                assertEquals(recovered.get(key(k)), value == null ? null : new String(value, StandardCharsets.UTF_8));
            }
        }
    }

    private static TreeMap<String, String> contents(Db db) {
        TreeMap<String, String> state = new TreeMap<>();
        try (DbIterator it = db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                state.put(new String(it.key(), StandardCharsets.UTF_8), new String(it.value(), StandardCharsets.UTF_8));
            }
        }
        return state;
    }

    private static long logBytes(MemFileSystem fs, Path dir) throws IOException {
        long total = 0;
        for (String name : fs.list(dir)) {
            if (name.endsWith(".log")) {
                total += fs.size(dir.resolve(name));
            }
        }
        return total;
    }

    private static String key(int k) {
        return String.format("k%02d", k);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
