package io.varve.core;

import io.varve.core.ingest.CpuPriority;
import io.varve.base.fs.MemFileSystem;
import io.varve.core.ingest.IngestOptions;
import io.varve.core.ingest.IngestRequiresFlushException;
import io.varve.core.sst.SstFileWriter;
import io.varve.core.sst.TableOptions;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Writes, deletes and ingestions in random order against a {@code TreeMap} oracle: after each ingestion the
 * model holds the files' puts and deletions on top of everything before; snapshots keep what they saw;
 * flushes, compactions (tiny levels: ingested tables land at every level) and reopening change nothing.
 * An ingestion refused for want of a flush must change nothing either.
 */
class IngestModelProperties {

    private static final Path DIR = Path.of("/db");
    private static final Path EXT = Path.of("/ext");

    sealed interface Op permits Put, Delete, Ingest, TakeSnapshot, CheckSnapshot, Flush, Compact, Reopen, Check {
    }

    record Put(int key, int value) implements Op {
    }

    record Delete(int key) implements Op {
    }

    /**
     * Ingests {@code entries} (key -> value, or -1 for a deletion) split into files at the keys in
     * {@code splits}, with the given options.
     */
    record Ingest(TreeMap<Integer, Integer> entries, List<Integer> splits, boolean allowBlockingFlush,
                  boolean allowWrite, boolean move) implements Op {
    }

    record TakeSnapshot() implements Op {
    }

    record CheckSnapshot(int index) implements Op {
    }

    record Flush() implements Op {
    }

    record Compact() implements Op {
    }

    record Reopen() implements Op {
    }

    record Check() implements Op {
    }

    @Property(tries = 50)
    void ingestionAgreesWithTreeMap(@ForAll("operations") List<Op> ops, @ForAll boolean unordered,
                                    @ForAll CpuPriority importPriority) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        fs.createDirectories(EXT);
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10)
                .withUnorderedWrite(unordered).withIngestCpuPriority(importPriority)
                .withCompactionSettings(new io.varve.core.compaction.CompactionSettings(2, 64 << 10, 2, 16 << 10));
        TreeMap<String, String> model = new TreeMap<>();
        List<Snapshot> snapshots = new ArrayList<>();
        List<TreeMap<String, String>> snapshotModels = new ArrayList<>();
        int files = 0;
        Db db = Db.open(DIR, options);
        try {
            for (Op op : ops) {
                switch (op) {
                    case Put p -> {
                        db.put(key(p.key()).getBytes(), value(p.value()).getBytes());
                        model.put(key(p.key()), value(p.value()));
                    }
                    case Delete d -> {
                        db.delete(key(d.key()).getBytes());
                        model.remove(key(d.key()));
                    }
                    case Ingest in -> {
                        List<Path> paths = new ArrayList<>();
                        for (TreeMap<Integer, Integer> part : split(in.entries(), in.splits())) {
                            paths.add(write(fs, EXT.resolve("f" + files++ + ".sst"), part));
                        }
                        // With unordered writes only allowWrite is possible; a single thread trivially keeps
                        // the promise that nothing writes into the range meanwhile.
                        IngestOptions ingest = IngestOptions.defaults().withAllowBlockingFlush(in.allowBlockingFlush())
                                .withAllowWrite(in.allowWrite() || unordered).withMoveFiles(in.move());
                        try {
                            db.ingestExternalFiles(paths, ingest);
                            in.entries().forEach((k, v) -> {
                                if (v < 0) {
                                    model.remove(key(k));
                                } else {
                                    model.put(key(k), value(v));
                                }
                            });
                        } catch (IngestRequiresFlushException refused) {
                            assertEquals(false, in.allowBlockingFlush());
                        }
                    }
                    case TakeSnapshot t -> {
                        snapshots.add(db.snapshot());
                        snapshotModels.add(new TreeMap<>(model));
                    }
                    case CheckSnapshot c -> {
                        if (!snapshots.isEmpty() && !unordered) {
                            int i = c.index() % snapshots.size();
                            assertEquals(snapshotModels.get(i), contents(db, ReadOptions.at(snapshots.get(i))));
                        }
                    }
                    case Flush f -> db.flush();
                    case Compact c -> db.compactRange(null, null);
                    case Reopen r -> {
                        snapshots.clear();
                        snapshotModels.clear();
                        db.close();
                        db = Db.open(DIR, options);
                    }
                    case Check c -> {
                        assertEquals(model, contents(db, ReadOptions.DEFAULT));
                        for (int k = 0; k < 12; k++) {
                            byte[] v = db.get(key(k).getBytes());
                            assertEquals(model.get(key(k)), v == null ? null : new String(v), key(k));
                        }
                    }
                }
            }
            assertEquals(model, contents(db, ReadOptions.DEFAULT));
            db.close();
            db = Db.open(DIR, options);
            assertEquals(model, contents(db, ReadOptions.DEFAULT));
        } finally {
            db.close();
        }
    }

    private static String key(int k) {
        return String.format("key%02d", k);
    }

    private static String value(int v) {
        return "v" + v;
    }

    private static List<TreeMap<Integer, Integer>> split(TreeMap<Integer, Integer> entries, List<Integer> splits) {
        List<TreeMap<Integer, Integer>> parts = new ArrayList<>();
        TreeMap<Integer, Integer> current = new TreeMap<>();
        for (Map.Entry<Integer, Integer> e : entries.entrySet()) {
            if (!current.isEmpty() && splits.contains(e.getKey())) {
                parts.add(current);
                current = new TreeMap<>();
            }
            current.put(e.getKey(), e.getValue());
        }
        parts.add(current);
        return parts;
    }

    private static Path write(MemFileSystem fs, Path path, TreeMap<Integer, Integer> entries) throws IOException {
        try (SstFileWriter writer = new SstFileWriter(fs, path, TableOptions.defaults())) {
            for (Map.Entry<Integer, Integer> e : entries.entrySet()) {
                if (e.getValue() < 0) {
                    writer.delete(key(e.getKey()).getBytes());
                } else {
                    writer.put(key(e.getKey()).getBytes(), value(e.getValue()).getBytes());
                }
            }
            writer.finish();
        }
        return path;
    }

    private static TreeMap<String, String> contents(Db db, ReadOptions read) {
        TreeMap<String, String> state = new TreeMap<>();
        try (DbIterator it = db.iterator(read)) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                state.put(new String(it.key()), new String(it.value()));
            }
        }
        return state;
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, 11);
        Arbitrary<Integer> values = Arbitraries.integers().between(0, 999);
        Arbitrary<Op> put = Combinators.combine(keys, values).as(Put::new);
        Arbitrary<Op> delete = keys.map(Delete::new);
        Arbitrary<TreeMap<Integer, Integer>> entries = Arbitraries.maps(keys,
                Arbitraries.frequencyOf(Tuple.of(4, values), Tuple.of(1, Arbitraries.just(-1))))
                .ofMinSize(1).ofMaxSize(8).map(TreeMap::new);
        Arbitrary<Op> ingest = Combinators.combine(entries, keys.list().ofMaxSize(2),
                Arbitraries.of(true, true, false), Arbitraries.of(true, false), Arbitraries.of(true, false))
                .as(Ingest::new);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(8, put),
                Tuple.of(3, delete),
                Tuple.of(5, ingest),
                Tuple.of(1, Arbitraries.just(new TakeSnapshot())),
                Tuple.of(2, Arbitraries.integers().between(0, 50).map(CheckSnapshot::new)),
                Tuple.of(2, Arbitraries.just(new Flush())),
                Tuple.of(1, Arbitraries.just(new Compact())),
                Tuple.of(1, Arbitraries.just(new Reopen())),
                Tuple.of(3, Arbitraries.just(new Check())));
        return op.list().ofMinSize(1).ofMaxSize(60);
    }
}
