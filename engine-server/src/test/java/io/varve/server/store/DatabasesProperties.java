package io.varve.server.store;

import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.WriteBatch;
import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random writes to logical databases, SWAPDBs, FLUSHDBs and reopens against a model (one map per logical
 * database): every database holds exactly its model's keys, before and after each reopen.
 */
class DatabasesProperties {

    private static final int DATABASES = 4;
    private static final List<String> KEYS = List.of("a", "b");

    /** One step: "set", "swap", "flush" or "reopen". */
    record Op(String kind, int db, int other, String key, String value) {
    }

    @Property(tries = 60)
    void databasesMatchTheModel(@ForAll("ops") List<Op> ops) throws Exception {
        MemFileSystem fs = new MemFileSystem();
        Options options = Options.defaults().withFileSystem(fs).withWriteBufferSize(64 << 10);
        List<Map<String, String>> model = new ArrayList<>();
        for (int i = 0; i < DATABASES; i++) {
            model.add(new HashMap<>());
        }
        Db db = Db.open(Path.of("/db"), options);
        try {
            Keyspace ks = new Keyspace(db, false, () -> 0L, DATABASES);
            for (Op op : ops) {
                Keyspace k = ks.inLogical(op.db());
                switch (op.kind()) {
                    case "set" -> {
                        WriteBatch batch = new WriteBatch();
                        k.putMetadata(batch, bytes(op.key()), Metadata.string(bytes(op.value()), 0));
                        k.commit(batch);
                        model.get(op.db()).put(op.key(), op.value());
                    }
                    case "swap" -> {
                        ks.databases().swap(op.db(), op.other());
                        Map<String, String> t = model.get(op.db());
                        model.set(op.db(), model.get(op.other()));
                        model.set(op.other(), t);
                    }
                    case "flush" -> {
                        k.flushDatabase();
                        model.get(op.db()).clear();
                    }
                    case "reopen" -> {
                        db.close();
                        db = Db.open(Path.of("/db"), options);
                        ks = new Keyspace(db, false, () -> 0L, DATABASES);
                    }
                    default -> throw new IllegalArgumentException(op.kind());
                }
                check(ks, model);
            }
        } finally {
            db.close();
        }
    }

    private static void check(Keyspace ks, List<Map<String, String>> model) {
        for (int d = 0; d < DATABASES; d++) {
            int logical = d;
            Keyspace view = ks.inLogical(logical);
            Map<String, String> actual = new HashMap<>();
            for (String key : KEYS) {
                Metadata meta = view.lookup(bytes(key));
                if (meta != null) {
                    actual.put(key, new String(meta.value(), StandardCharsets.UTF_8));
                }
            }
            assertEquals(actual.size(), view.countKeys()[0], "DBSIZE of database " + logical);
            assertEquals(model.get(d), actual, "database " + d);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> db = Arbitraries.integers().between(0, DATABASES - 1);
        Arbitrary<Op> set = Combinators.combine(db, Arbitraries.of(KEYS), Arbitraries.of("1", "2", "3"))
                .as((d, k, v) -> new Op("set", d, 0, k, v));
        Arbitrary<Op> swap = Combinators.combine(db, db).as((x, y) -> new Op("swap", x, y, null, null));
        Arbitrary<Op> flush = db.map(d -> new Op("flush", d, 0, null, null));
        Arbitrary<Op> reopen = Arbitraries.just(new Op("reopen", 0, 0, null, null));
        return Arbitraries.frequencyOf(
                Tuple.of(6, set), Tuple.of(3, swap),
                Tuple.of(1, flush), Tuple.of(2, reopen)).list().ofMaxSize(30);
    }
}
