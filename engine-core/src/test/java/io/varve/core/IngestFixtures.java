package io.varve.core;

import io.varve.core.internal.DbTestAccess;
import io.varve.base.fs.FileSystem;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import io.varve.core.internal.version.TableMeta;
import io.varve.core.internal.version.Version;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;

/** Helpers for the ingestion tests: external files from a sorted map, and where a family's tables sit. */
public final class IngestFixtures {

    private IngestFixtures() {
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes an external table for {@code family}: a null value is a deletion. */
    public static Path external(FileSystem fs, Path path, String family, SortedMap<String, String> entries) throws IOException {
        try (SstFileWriter writer = new SstFileWriter(fs, path, TableOptions.defaults(), family)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                if (e.getValue() == null) {
                    writer.delete(bytes(e.getKey()));
                } else {
                    writer.put(bytes(e.getKey()), bytes(e.getValue()));
                }
            }
            writer.finish();
        }
        return path;
    }

    /** The level of the table holding {@code key} as its smallest key in the family's current version, or -1. */
    public static int levelOf(Db db, ColumnFamily family, String smallestKey) {
        Version version = DbTestAccess.currentVersion(db, family);
        try {
            for (int level = 0; level < Version.NUM_LEVELS; level++) {
                for (TableMeta t : version.level(level)) {
                    if (java.util.Arrays.equals(t.smallestKey(), bytes(smallestKey))) {
                        return level;
                    }
                }
            }
            return -1;
        } finally {
            version.release();
        }
    }

    public static String get(Db db, ColumnFamily family, String key) {
        byte[] value = db.get(family, bytes(key));
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
}
