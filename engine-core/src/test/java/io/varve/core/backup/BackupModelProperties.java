package io.varve.core.backup;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random writes, flushes, backups, purges, deletions of backups and reopenings of the backup directory
 * against a model: a map from backup id to the {@code TreeMap} the database held when it was taken. After
 * every step the listed backups are exactly the model's, and at the end each one restores to its map.
 */
class BackupModelProperties {

    private static final Path DB = Path.of("/db");
    private static final Path BACKUPS = Path.of("/backups");

    sealed interface Op permits Put, Delete, Flush, Backup, Purge, DeleteOne, ReopenEngine {
    }

    record Put(int key, int value) implements Op {
    }

    record Delete(int key) implements Op {
    }

    record Flush() implements Op {
    }

    record Backup() implements Op {
    }

    record Purge(int keep) implements Op {
    }

    record DeleteOne(int pick) implements Op {
    }

    record ReopenEngine() implements Op {
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(10, Arbitraries.integers().between(0, 40)
                        .flatMap(k -> Arbitraries.integers().between(0, 1000).map(v -> (Op) new Put(k, v)))),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 40).map(k -> (Op) new Delete(k))),
                net.jqwik.api.Tuple.of(2, Arbitraries.just((Op) new Flush())),
                net.jqwik.api.Tuple.of(3, Arbitraries.just((Op) new Backup())),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 3).map(k -> (Op) new Purge(k))),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 10).map(k -> (Op) new DeleteOne(k))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just((Op) new ReopenEngine())));
        return op.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 60)
    void backupsRestoreToWhatTheDatabaseHeld(@ForAll("operations") List<Op> ops) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs);
        TreeMap<String, String> model = new TreeMap<>();
        TreeMap<Long, TreeMap<String, String>> backups = new TreeMap<>();
        Db db = Db.open(DB, options);
        BackupEngine engine = BackupEngine.open(BACKUPS, fs);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        db.put(key(p.key()), bytes(Integer.toString(p.value())));
                        model.put("k" + p.key(), Integer.toString(p.value()));
                    }
                    case Delete d -> {
                        db.delete(key(d.key()));
                        model.remove("k" + d.key());
                    }
                    case Flush f -> db.flush();
                    case Backup b -> {
                        db.close();
                        BackupInfo info = engine.createBackup(DB);
                        backups.put(info.id(), new TreeMap<>(model));
                        db = Db.open(DB, options);
                    }
                    case Purge p -> {
                        engine.purgeOldBackups(p.keep());
                        while (backups.size() > p.keep()) {
                            backups.pollFirstEntry();
                        }
                    }
                    case DeleteOne d -> {
                        if (!backups.isEmpty()) {
                            long id = new ArrayList<>(backups.keySet()).get(d.pick() % backups.size());
                            engine.deleteBackup(id);
                            backups.remove(id);
                        }
                    }
                    case ReopenEngine r -> {
                        engine.close();
                        engine = BackupEngine.open(BACKUPS, fs);
                    }
                }
                assertEquals(List.copyOf(backups.keySet()),
                        engine.listBackups().stream().map(BackupInfo::id).toList());
            }
            int restored = 0;
            for (Map.Entry<Long, TreeMap<String, String>> backup : backups.entrySet()) {
                Path target = Path.of("/restored-" + restored++);
                engine.verifyBackup(backup.getKey());
                engine.restore(backup.getKey(), target);
                try (Db copy = Db.open(target, options)) {
                    assertEquals(backup.getValue(), contents(copy), "backup " + backup.getKey());
                }
            }
        } finally {
            engine.close();
            db.close();
        }
    }

    static TreeMap<String, String> contents(Db db) {
        TreeMap<String, String> state = new TreeMap<>();
        try (DbIterator it = db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                state.put(new String(it.key(), StandardCharsets.UTF_8), new String(it.value(), StandardCharsets.UTF_8));
            }
        }
        return state;
    }

    private static byte[] key(int k) {
        return bytes("k" + k);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
