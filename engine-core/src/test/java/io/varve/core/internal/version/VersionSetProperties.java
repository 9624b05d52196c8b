package io.varve.core.internal.version;

import io.varve.base.CorruptionException;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.base.fs.MemFileSystem;
import io.varve.base.fs.ReadableFile;
import io.varve.base.fs.WritableFile;
import io.varve.core.internal.memtable.Memtable;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The version set against a simple model (per level, a map from file number to table), through random edits,
 * reopen, and manifest damage.
 */
class VersionSetProperties {

    private static final Path DIR = Path.of("/vs");

    /** An edit described by seeds: how many tables to add at which levels, and which to remove. */
    record EditPlan(int adds, int removes, int level, long seed) {
    }

    @Property(tries = 40)
    void versionsMatchTheModelAcrossEditsAndReopen(@ForAll("plans") List<EditPlan> plans) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(DIR);
        List<Map<Long, TableMeta>> model = new ArrayList<>();
        for (int i = 0; i < Version.NUM_LEVELS; i++) {
            model.add(new TreeMap<>());
        }
        long nextNumber = 100;
        long nextKey = 0;
        Harness h = Harness.open(fs);
        try {
            for (EditPlan plan : plans) {
                Random random = new Random(plan.seed);
                VersionEdit edit = new VersionEdit();
                Map<Long, TableMeta> levelModel = model.get(plan.level);
                List<Long> present = new ArrayList<>(levelModel.keySet());
                for (int i = 0; i < plan.removes && !present.isEmpty(); i++) {
                    long victim = present.remove(random.nextInt(present.size()));
                    edit.remove(plan.level, victim);
                    levelModel.remove(victim);
                }
                for (int i = 0; i < plan.adds; i++) {
                    // Fresh, increasing key ranges never overlap anything, at any level.
                    TableMeta t = table(nextNumber++, nextKey, nextKey + 1 + random.nextInt(5));
                    nextKey += 10;
                    edit.add(plan.level, t);
                    levelModel.put(t.fileNumber(), t);
                }
                h.versions.logAndApply(edit, m -> m);
                assertMatches(model, h.versions);
                if (random.nextInt(6) == 0) {
                    h.close();
                    h = Harness.open(fs);
                    assertMatches(model, h.versions);
                }
            }
        } finally {
            h.close();
        }
    }

    private static void assertMatches(List<Map<Long, TableMeta>> model, VersionSet versions) {
        Version v = versions.currentVersion();
        try {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                java.util.List<TableMeta> tables = v.level(level);
                assertEquals(model.get(level).size(), tables.size(), "table count at level " + level);
                for (TableMeta t : tables) {
                    assertTrue(model.get(level).containsKey(t.fileNumber()), "unexpected " + t + " at level " + level);
                }
                for (int i = 1; level > 0 && i < tables.size(); i++) {
                    assertTrue(io.varve.core.internal.keys.Keys.compare(tables.get(i - 1).largestKey(), tables.get(i).smallestKey()) < 0,
                            "level " + level + " not sorted and disjoint");
                }
            }
        } finally {
            v.release();
        }
    }

    @Provide
    Arbitrary<List<EditPlan>> plans() {
        return net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 3),
                        Arbitraries.integers().between(0, Version.NUM_LEVELS - 1), Arbitraries.longs())
                .as(EditPlan::new).list().ofMinSize(1).ofMaxSize(40);
    }

    static TableMeta table(long number, long firstKey, long lastKey) {
        byte[] smallest = key(firstKey);
        byte[] largest = key(lastKey);
        long trailer = InternalKey.trailer(number, ValueKind.PUT);
        return new TableMeta(number, 1000 + number, smallest, trailer, largest, trailer, number, number, -1);
    }

    static byte[] key(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    /** A version set over an in-memory directory, as the database would open it. */
    static final class Harness implements AutoCloseable {
        final Reclaimer reclaimer = new Reclaimer("test-reclaimer");
        final TableCache cache;
        final VersionSet versions;

        private Harness(MemFileSystem fs) throws IOException {
            cache = new TableCache(fs, n -> DIR.resolve(n + ".sst"), null);
            RecoveredManifest recovered = VersionSet.recover(fs, DIR);
            Memtable memtable = new Memtable(Memtable.MIN_CAPACITY);
            try {
                versions = VersionSet.open(fs, DIR, recovered, new VersionEdit().logNumber(1), memtable, reclaimer,
                        cache, n -> DIR.resolve(n + ".sst"), Math.max(recovered.nextFileNumber(), 10_000));
            } finally {
                memtable.release();
            }
        }

        static Harness open(MemFileSystem fs) throws IOException {
            return new Harness(fs);
        }

        @Override
        public void close() throws IOException {
            versions.close();
            reclaimer.close();
            cache.close();
        }
    }
}
