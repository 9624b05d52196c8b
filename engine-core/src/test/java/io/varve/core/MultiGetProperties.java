package io.varve.core;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.compaction.CompactionSettings;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * multiGet against a {@code TreeMap} model over two families, with data spread over memtables and tables
 * (flushes, compactions, reopens) and snapshots: each answer equals the model (of the snapshot, when one is
 * given) key by key, in the caller's order, with duplicates and absent keys.
 */
class MultiGetProperties {

    private static final Path DIR = Path.of("/mg");

    @Property(tries = 20)
    void multiGetEqualsTheModel(@ForAll long seed) throws IOException {
        Random random = new Random(seed);
        MemFileSystem fs = new MemFileSystem();
        CompactionSettings small = new CompactionSettings(2, 64 << 10, 4, 16 << 10);
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withCompactionSettings(small).withColumnFamily("a", ColumnFamilyOptions.defaults());
        List<TreeMap<Integer, Integer>> models = List.of(new TreeMap<>(), new TreeMap<>());
        List<Snapshot> snapshots = new ArrayList<>();
        List<List<TreeMap<Integer, Integer>>> snapshotModels = new ArrayList<>();
        Db db = Db.open(DIR, options);
        try {
            db.createColumnFamily("a", ColumnFamilyOptions.defaults());
            for (int step = 0; step < 400; step++) {
                List<ColumnFamily> families = List.of(db.defaultColumnFamily(), db.columnFamily("a").orElseThrow());
                int f = random.nextInt(2);
                int choice = random.nextInt(100);
                if (choice < 60) {
                    int key = random.nextInt(300);
                    int value = random.nextInt();
                    db.put(families.get(f), bytes(key), bytes(value));
                    models.get(f).put(key, value);
                } else if (choice < 72) {
                    int key = random.nextInt(300);
                    db.delete(families.get(f), bytes(key));
                    models.get(f).remove(key);
                } else if (choice < 74) {
                    db.flush();
                } else if (choice < 75) {
                    db.compactRange(families.get(f), null, null);
                } else if (choice < 77 && snapshots.size() < 3) {
                    snapshots.add(db.snapshot());
                    snapshotModels.add(List.of(new TreeMap<>(models.get(0)), new TreeMap<>(models.get(1))));
                } else if (choice < 78) {
                    snapshots.forEach(Snapshot::close);
                    snapshots.clear();
                    snapshotModels.clear();
                    db.close();
                    db = Db.open(DIR, options);
                } else {
                    List<Integer> keys = new ArrayList<>();
                    int n = random.nextInt(120);
                    for (int i = 0; i < n; i++) {
                        keys.add(random.nextInt(320));
                    }
                    ReadOptions read = ReadOptions.DEFAULT;
                    TreeMap<Integer, Integer> model = models.get(f);
                    if (!snapshots.isEmpty() && random.nextBoolean()) {
                        int s = random.nextInt(snapshots.size());
                        read = ReadOptions.DEFAULT.withSnapshot(snapshots.get(s));
                        model = snapshotModels.get(s).get(f);
                    }
                    List<byte[]> values = random.nextBoolean() || f != 0
                            ? db.multiGet(read, families.get(f), keys.stream().map(MultiGetProperties::bytes).toList())
                            : db.multiGet(read, keys.stream().map(MultiGetProperties::bytes).toList());
                    assertEquals(keys.size(), values.size());
                    for (int i = 0; i < keys.size(); i++) {
                        Integer expected = model.get(keys.get(i));
                        byte[] actual = values.get(i);
                        assertEquals(expected, actual == null ? null : number(actual), "key " + keys.get(i));
                    }
                }
            }
            Db open = db;
            assertThrows(NullPointerException.class, () -> open.multiGet(ReadOptions.DEFAULT,
                    Arrays.asList(bytes(1), null)));
        } finally {
            snapshots.forEach(Snapshot::close);
            db.close();
        }
    }

    private static byte[] bytes(int n) {
        return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
    }

    private static int number(byte[] b) {
        return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    }
}
