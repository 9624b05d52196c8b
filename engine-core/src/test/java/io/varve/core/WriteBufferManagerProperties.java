package io.varve.core;

import io.varve.base.LeakDetector;
import io.varve.base.fs.MemFileSystem;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several real databases under one memtable budget smaller than their write buffers, written at random by one
 * thread with blocking writes (so every write that finds the budget full waits for a background flush: a
 * deadlock hangs the property). After every write the budget's total, and the memtable bytes the databases
 * themselves report, stay within the budget plus one write; every database reads back what a {@code TreeMap}
 * per database says, also after a reopen.
 */
class WriteBufferManagerProperties {

    static final long BUDGET = 192 << 10;
    static final int MAX_VALUE = 6_000;
    static final int DATABASES = 3;
    /** One write's most memtable bytes: key, value, node overhead, and the head of a memtable a rotation starts. */
    static final long ONE_WRITE = 4 + MAX_VALUE + 128 + 1024;

    record Put(int db, int key, int valueLength) {
    }

    static byte[] key(int key) {
        return new byte[] {(byte) (key >> 24), (byte) (key >> 16), (byte) (key >> 8), (byte) key};
    }

    static byte[] value(int key, int length) {
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) key);
        return value;
    }

    static Options options(MemFileSystem fs, WriteBufferManager manager) {
        return Options.defaults().withFileSystem(fs).withWriteBufferSize(1 << 20).withWriteBufferManager(manager);
    }

    static long reportedMemtableBytes(List<Db> dbs) {
        long sum = 0;
        for (Db db : dbs) {
            sum += db.getLongProperty("varve.cur-size-all-mem-tables");
        }
        return sum;
    }

    @Property(tries = 15)
    void memtablesStayWithinTheBudgetAndKeepEveryWrite(@ForAll("puts") List<Put> puts) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        WriteBufferManager manager = new WriteBufferManager(BUDGET);
        List<Map<Integer, byte[]>> oracles = new ArrayList<>();
        List<Db> dbs = new ArrayList<>();
        for (int i = 0; i < DATABASES; i++) {
            dbs.add(Db.open(Path.of("/db" + i), options(fs, manager)));
            oracles.add(new TreeMap<>());
        }
        try {
            for (int step = 0; step < puts.size(); step++) {
                Put put = puts.get(step);
                byte[] value = value(put.key(), put.valueLength());
                dbs.get(put.db()).put(key(put.key()), value);
                oracles.get(put.db()).put(put.key(), value);
                assertTrue(manager.usedBytes() <= BUDGET + ONE_WRITE,
                        "step " + step + ": budget's total " + manager.usedBytes());
                // Other databases' figures were measured at their last write or flush; memory only shrank since.
                long reported = reportedMemtableBytes(dbs);
                assertTrue(reported <= BUDGET + ONE_WRITE, "step " + step + ": the databases hold " + reported);
            }
            for (int i = 0; i < DATABASES; i++) {
                dbs.get(i).close();
                dbs.set(i, Db.open(Path.of("/db" + i), options(fs, manager)));
            }
            for (int i = 0; i < DATABASES; i++) {
                for (Map.Entry<Integer, byte[]> e : oracles.get(i).entrySet()) {
                    assertArrayEquals(e.getValue(), dbs.get(i).get(key(e.getKey())), "db " + i + " key " + e.getKey());
                }
                dbs.get(i).flush();
            }
            assertEquals(reportedMemtableBytes(dbs), manager.usedBytes(), "after flushes the figures agree exactly");
        } finally {
            dbs.forEach(Db::close);
        }
        assertEquals(0, manager.usedBytes());
        assertEquals(0, manager.databaseCount());
        for (int i = 0; i < DATABASES; i++) {
            assertTrue(LeakDetector.openOwnedBy("/db" + i).isEmpty());
        }
    }

    @Provide
    Arbitrary<List<Put>> puts() {
        return Combinators.combine(Arbitraries.integers().between(0, DATABASES - 1),
                        Arbitraries.integers().between(0, 400), Arbitraries.integers().between(1, MAX_VALUE))
                .as(Put::new).list().ofMinSize(50).ofMaxSize(300);
    }
}
