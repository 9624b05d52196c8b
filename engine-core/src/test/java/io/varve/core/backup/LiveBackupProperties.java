package io.varve.core.backup;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backups of a live database while a writer thread keeps writing and flushing: each backup restores to a
 * prefix of the acknowledged writes (one writer, so acknowledgement order is commit order) holding every write
 * acknowledged before its {@code createBackup} call, and no temporary checkpoint is left behind.
 */
class LiveBackupProperties {

    private static final Path DB = Path.of("/db");
    private static final Path BACKUPS = Path.of("/backups");

    /** A put (value >= 0) or delete (value < 0) of one key. */
    record Write(int key, int value) {
    }

    @Property(tries = 10)
    void backupsOfALiveDatabaseRestoreToPrefixes(@ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int backups)
            throws Exception {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
        List<Write> acknowledged = Collections.synchronizedList(new ArrayList<>());
        List<Integer> before = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        try (Db db = Db.open(DB, options); BackupEngine engine = BackupEngine.open(BACKUPS, fs)) {
            Random random = new Random(seed);
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                int n = 0;
                while (!stop.get()) {
                    int key = random.nextInt(50);
                    int value = random.nextInt(6) == 0 ? -1 : random.nextInt(1_000_000);
                    if (value < 0) {
                        db.delete(bytes(key));
                    } else {
                        db.put(bytes(key), bytes(value));
                    }
                    acknowledged.add(new Write(key, value));
                    if (++n == 30) {
                        started.countDown();
                    }
                    if (random.nextInt(300) == 0) {
                        db.flush();
                    }
                }
            });
            assertTrue(started.await(1, TimeUnit.MINUTES), "writer did not start");
            for (int i = 0; i < backups; i++) {
                before.add(acknowledged.size());
                ids.add(engine.createBackup(db).id());
            }
            stop.set(true);
            writer.get(1, TimeUnit.MINUTES);
            assertTrue(fs.list(BACKUPS).stream().filter(name -> name.startsWith("checkpoint.tmp"))
                    .allMatch(name -> fs.list(BACKUPS.resolve(name)).isEmpty()), "a temporary checkpoint was left behind");
            for (int i = 0; i < backups; i++) {
                engine.verifyBackup(ids.get(i));
                Path restored = Path.of("/restore-" + i);
                engine.restore(ids.get(i), restored);
                try (Db copy = Db.open(restored, options)) {
                    TreeMap<Integer, Integer> state = contents(copy);
                    List<Write> writes = List.copyOf(acknowledged);
                    int minimum = before.get(i);
                    assertTrue(isPrefix(writes, minimum, state), () -> "backup is not a prefix holding the first "
                            + minimum + " writes");
                }
            }
            assertEquals(backups, engine.listBackups().size());
        }
    }

    private static boolean isPrefix(List<Write> writes, int minimum, TreeMap<Integer, Integer> actual) {
        TreeMap<Integer, Integer> model = new TreeMap<>();
        for (int i = 0; i < writes.size(); i++) {
            if (i >= minimum && model.equals(actual)) {
                return true;
            }
            Write w = writes.get(i);
            if (w.value() < 0) {
                model.remove(w.key());
            } else {
                model.put(w.key(), w.value());
            }
        }
        return model.equals(actual);
    }

    private static byte[] bytes(int n) {
        return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
    }

    private static int number(byte[] b) {
        return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    }

    private static TreeMap<Integer, Integer> contents(Db db) {
        TreeMap<Integer, Integer> state = new TreeMap<>();
        try (DbIterator it = db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                state.put(number(it.key()), number(it.value()));
            }
        }
        return state;
    }
}
