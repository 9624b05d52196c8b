package io.varve.server;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.Snapshot;
import io.varve.core.WriteBatch;
import io.varve.core.WriteOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The embedded-engine walkthrough ({@code bin/varve --demo}): on a database under {@code ./data} (or
 * {@code --dir}) it writes, reads back, and prints what it did. Running it twice shows that data survives a
 * restart. It uses the engine directly, with no server.
 */
final class EmbeddedDemo {

    private EmbeddedDemo() {
    }

    static void run(Path dir) throws IOException {
        long started = System.nanoTime();
        try (Db db = Db.open(dir, Options.defaults())) {
            System.out.printf("opened %s in %.1f ms%n", dir.toAbsolutePath(), (System.nanoTime() - started) / 1e6);

            byte[] runsKey = bytes("demo:runs");
            byte[] previous = db.get(runsKey);
            long runs = previous == null ? 1 : Long.parseLong(text(previous)) + 1;
            db.put(WriteOptions.SYNC, runsKey, bytes(Long.toString(runs)));
            System.out.printf("run number %d (stored durably with a synced write)%n", runs);

            WriteBatch batch = new WriteBatch();
            for (int i = 0; i < 5; i++) {
                batch.put(bytes("demo:fruit:" + i), bytes(new String[] {"apple", "banana", "cherry", "date", "elder"}[i]));
            }
            db.write(batch, WriteOptions.DEFAULT);
            System.out.println("wrote a batch of 5 keys atomically");

            try (Snapshot snapshot = db.snapshot()) {
                db.delete(bytes("demo:fruit:1"));
                System.out.println("deleted demo:fruit:1; it is gone now: " + (db.get(bytes("demo:fruit:1")) == null));
                System.out.println("but the snapshot taken before still sees: "
                        + text(db.get(ReadOptions.at(snapshot), bytes("demo:fruit:1"))));
            }

            System.out.println("scan of demo:fruit:* in key order:");
            ReadOptions range = ReadOptions.DEFAULT.withLowerBound(bytes("demo:fruit:")).withUpperBound(bytes("demo:fruit;"));
            try (DbIterator it = db.iterator(range)) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    System.out.println("  " + text(it.key()) + " = " + text(it.value()));
                }
            }

            int n = 100_000;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                db.put(bytes(String.format("demo:bulk:%08d", i)), bytes("value-" + i));
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("wrote %,d keys in %.2f s (%,.0f puts/s, WAL on, not synced per write)%n", n, seconds, n / seconds);
            long t1 = System.nanoTime();
            int found = 0;
            for (int i = 0; i < n; i += 7) {
                if (db.get(bytes(String.format("demo:bulk:%08d", i))) != null) {
                    found++;
                }
            }
            System.out.printf("read back %,d of them in %.2f s, all present: %b%n", found,
                    (System.nanoTime() - t1) / 1e9, found == (n + 6) / 7);
        }
        System.out.println("closed; run again to see the data survive the restart");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return b == null ? "(absent)" : new String(b, StandardCharsets.UTF_8);
    }
}
