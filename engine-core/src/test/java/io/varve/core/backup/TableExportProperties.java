package io.varve.core.backup;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.ColumnFamily;
import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.sst.TableOptions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An export of a range at a snapshot, ingested into an empty database, holds exactly the model's entries of
 * that range as the snapshot saw them: not the writes after it, nothing outside the range.
 */
class TableExportProperties {

    @Property(tries = 40)
    void anExportIngestedElsewhereEqualsTheRangeAtTheSnapshot(
            @ForAll @Size(max = 300) List<@IntRange(min = 0, max = 99) Integer> writes,
            @ForAll @IntRange(min = 0, max = 99) int from, @ForAll @IntRange(min = 0, max = 100) int span,
            @ForAll @IntRange(min = 1, max = 4000) int targetBytes, @ForAll boolean flushFirst) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs);
        byte[] begin = key(from);
        byte[] end = from + span >= 100 ? null : key(from + span);
        TreeMap<String, String> model = new TreeMap<>();
        try (Db source = Db.open(Path.of("/source"), options)) {
            ColumnFamily family = source.createColumnFamily("region", ColumnFamilyOptions.defaults());
            int step = 0;
            for (int k : writes) {
                String value = "v" + step++;
                if (step % 5 == 0) {
                    source.delete(family, key(k));
                    model.remove(new String(key(k), StandardCharsets.UTF_8));
                } else {
                    source.put(family, key(k), value.getBytes(StandardCharsets.UTF_8));
                    model.put(new String(key(k), StandardCharsets.UTF_8), value);
                }
            }
            if (flushFirst) {
                source.flush();
            }
            TableExport.Result result;
            try (Snapshot snapshot = source.snapshot()) {
                for (int k = 0; k < 100; k += 3) {
                    source.put(family, key(k), "after".getBytes(StandardCharsets.UTF_8));
                }
                result = TableExport.export(source, family, snapshot, begin, end, fs, Path.of("/export"), "region",
                        TableOptions.defaults(), targetBytes);
            }
            SortedMap<String, String> expected = end == null
                    ? model.tailMap(new String(begin, StandardCharsets.UTF_8))
                    : model.subMap(new String(begin, StandardCharsets.UTF_8), new String(end, StandardCharsets.UTF_8));
            assertEquals(expected.size(), result.entries());
            assertTrue(expected.isEmpty() == result.files().isEmpty());
            try (Db target = Db.open(Path.of("/target"), options)) {
                ColumnFamily region = target.createColumnFamily("region", ColumnFamilyOptions.defaults());
                if (!result.files().isEmpty()) {
                    target.ingestExternalFiles(region, result.files(), IngestOptions.defaults());
                }
                TreeMap<String, String> actual = new TreeMap<>();
                try (DbIterator it = target.iterator(ReadOptions.DEFAULT, region)) {
                    for (it.seekToFirst(); it.valid(); it.next()) {
                        actual.put(new String(it.key(), StandardCharsets.UTF_8), new String(it.value(), StandardCharsets.UTF_8));
                    }
                }
                assertEquals(new TreeMap<>(expected), actual);
            }
        }
    }

    private static byte[] key(int k) {
        return String.format("key-%03d", k).getBytes(StandardCharsets.UTF_8);
    }
}
