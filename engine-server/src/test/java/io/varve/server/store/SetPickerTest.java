package io.varve.server.store;

import io.varve.base.fs.MemFileSystem;
import io.varve.core.Db;
import io.varve.core.Options;
import io.varve.core.ReadOptions;
import io.varve.core.WriteBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Draining a set with SPOP's picks: every pick must return a live member, and the member ranges the picks
 * read must not hold the tombstones of earlier pops (each costs a step of the engine's iterator), so a
 * pop's cost does not grow with the number of pops before it. Tombstones the hint never heard of (after a
 * restart) are crossed at most once.
 */
class SetPickerTest {

    private static final byte[] KEY = "s".getBytes(StandardCharsets.UTF_8);

    private final MemFileSystem files = new MemFileSystem();
    private Db db;
    private Keyspace keyspace;
    /** Members popped so far, as the engine holds them: tombstones. */
    private final NavigableSet<byte[]> dead = new TreeSet<>(Arrays::compareUnsigned);
    /** How often a pick's read crossed each tombstone. */
    private final Map<String, Integer> crossings = new HashMap<>();

    @BeforeEach
    void open() throws IOException {
        db = Db.open(Path.of("/db"), Options.defaults().withFileSystem(files).withWriteBufferSize(64 << 10));
        keyspace = new Keyspace(db, false, System::currentTimeMillis);
        keyspace.setPopHints().listen((version, from, limit, found) -> {
            byte[] to = found != null ? found : limit;
            NavigableSet<byte[]> crossed = to == null ? dead.tailSet(from, true) : dead.subSet(from, true, to, false);
            for (byte[] member : crossed) {
                crossings.merge(new String(member, StandardCharsets.UTF_8), 1, Integer::sum);
            }
        });
    }

    @AfterEach
    void close() {
        db.close();
    }

    private void restart() throws IOException {
        db.close();
        open();
    }

    @Test
    void drainingASetNeverCrossesTheTombstonesOfEarlierPops() {
        TreeSet<String> live = fill(20_000);
        Random random = new Random(7);
        while (!live.isEmpty()) {
            popAndCheck(1 + random.nextInt(3), live, random);
        }
        long crossed = crossings.values().stream().mapToLong(Integer::longValue).sum();
        assertEquals(0, crossed, "tombstone crossings, e.g. " + crossings.keySet().stream().limit(5).toList());
        assertEquals(null, keyspace.lookup(KEY));
    }

    @Test
    void afterARestartEachUnknownTombstoneIsCrossedAtMostOnce() throws IOException {
        TreeSet<String> live = fill(8_000);
        Random random = new Random(11);
        for (int i = 0; i < 4_000; i++) {
            popAndCheck(1, live, random);
        }
        restart(); // the hint is gone; 4,000 tombstones are in the engine
        crossings.clear();
        while (!live.isEmpty()) {
            popAndCheck(1, live, random);
        }
        int most = crossings.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        assertTrue(most <= 1, "a tombstone crossed " + most + " times");
    }

    @Test
    void randomMembersFromANonEmptySetAreLiveWhateverTheHintSays() {
        TreeSet<String> live = fill(2_000);
        Random random = new Random(3);
        for (int i = 0; i < 1_500; i++) {
            popAndCheck(1, live, random);
        }
        SetPicker picker = new SetPicker(keyspace);
        Metadata meta = keyspace.lookup(KEY);
        for (int i = 0; i < 200; i++) {
            byte[] member = picker.peek(ReadOptions.DEFAULT, KEY, meta, random);
            assertNotNull(member);
            assertTrue(live.contains(new String(member, StandardCharsets.UTF_8)));
        }
        List<byte[]> all = picker.members(ReadOptions.DEFAULT, KEY, meta);
        assertEquals(new ArrayList<>(live), all.stream().map(m -> new String(m, StandardCharsets.UTF_8)).toList());
    }

    @Test
    void becomingTheWriterAgainForgetsTheHints() {
        TreeSet<String> live = fill(2_000);
        Random random = new Random(5);
        for (int i = 0; i < 500; i++) {
            popAndCheck(1, live, random);
        }
        long version = keyspace.lookup(KEY).version();
        assertNotNull(keyspace.setPopHints().get(version), "pops left a hint");
        // A Raft leader of a new term: other leaders may have re-added members inside the recorded stretches.
        keyspace.resumeAsWriter();
        assertEquals(null, keyspace.setPopHints().get(version));
        while (!live.isEmpty()) {
            popAndCheck(1, live, random);
        }
    }

    /** A set of members {@code element:0..n-1} (decimal, so many share prefixes), written in batches. */
    private TreeSet<String> fill(int n) {
        SetStore sets = new SetStore(keyspace);
        Metadata meta = sets.create();
        TreeSet<String> live = new TreeSet<>();
        WriteBatch batch = new WriteBatch();
        for (int i = 0; i < n; i++) {
            String member = "element:" + i;
            sets.add(batch, KEY, meta, member.getBytes(StandardCharsets.UTF_8));
            live.add(member);
        }
        keyspace.putMetadata(batch, KEY, meta.withSize(n));
        keyspace.commit(batch);
        return live;
    }

    /** What SPOP does under the key's lock: pick, delete the picks and store the new size, in one batch. */
    private void popAndCheck(int count, TreeSet<String> live, Random random) {
        Metadata meta = keyspace.lookup(KEY);
        SetStore sets = new SetStore(keyspace);
        List<byte[]> popped = count >= meta.size()
                ? new SetPicker(keyspace).members(ReadOptions.DEFAULT, KEY, meta)
                : new SetPicker(keyspace).pop(KEY, meta, count, random);
        assertEquals(Math.min(count, meta.size()), popped.size());
        WriteBatch batch = new WriteBatch();
        for (byte[] member : popped) {
            assertTrue(live.remove(new String(member, StandardCharsets.UTF_8)), "not a live member");
            sets.remove(batch, KEY, meta, member);
            dead.add(member);
        }
        long size = meta.size() - popped.size();
        if (size == 0) {
            keyspace.deleteMetadata(batch, KEY);
            keyspace.setPopHints().forget(meta.version());
        } else {
            keyspace.putMetadata(batch, KEY, meta.withSize(size));
        }
        keyspace.commit(batch);
    }
}
