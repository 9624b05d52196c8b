package io.varve.stress.engine;

import io.varve.core.Db;
import io.varve.core.WriteBatch;
import io.varve.stress.Corruptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The engine campaign's workload and its oracle: the ordered writes (each an atomic batch of puts and
 * deletes) and how many of them were in tables when the workload ended. A value is a function of its key
 * and version, so a read's bytes tell which write produced them, or that none did.
 */
final class EngineHistory {
    /** Per write, per operation: key and version (-1: delete). */
    private final List<int[][]> writes = new ArrayList<>();
    private final int keys;
    private int inTables;

    private EngineHistory(int keys) {
        this.keys = keys;
    }

    /**
     * Runs the workload into {@code dir}: batches of one to four operations, a quarter synced; an explicit
     * flush and a full compaction at two thirds; the rest only in the write-ahead log (closing does not flush).
     */
    static EngineHistory build(Path dir, long seed, int keys, int writes) throws Exception {
        Corruptions.deleteDirectory(dir);
        EngineHistory h = new EngineHistory(keys);
        Random random = new Random(seed);
        try (Db db = Db.open(dir, EngineCorruptionCampaign.options())) {
            for (int n = 0; n < writes; n++) {
                int ops = 1 + random.nextInt(4);
                int[][] write = new int[ops][];
                WriteBatch batch = new WriteBatch();
                for (int i = 0; i < ops; i++) {
                    int key = random.nextInt(keys);
                    boolean delete = random.nextInt(10) == 0;
                    write[i] = new int[] {key, delete ? -1 : n};
                    if (delete) {
                        batch.delete(key(key));
                    } else {
                        batch.put(key(key), value(key, n));
                    }
                }
                EngineCorruptionCampaign.write(db, batch, random.nextInt(4) == 0);
                h.writes.add(write);
                if (n == writes * 2 / 3) {
                    db.flush();
                    db.compactRange(null, null);
                    h.inTables = n + 1;
                }
            }
        }
        return h;
    }

    int size() {
        return writes.size();
    }

    int keys() {
        return keys;
    }

    int inTables() {
        return inTables;
    }

    static byte[] key(int key) {
        return String.format("key%06d", key).getBytes(StandardCharsets.US_ASCII);
    }

    /** The key's number, or -1 if the bytes are not a key of this workload. */
    static int keyIndex(byte[] key) {
        String s = new String(key, StandardCharsets.US_ASCII);
        if (s.length() != 9 || !s.startsWith("key")) {
            return -1;
        }
        try {
            return Integer.parseInt(s.substring(3));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static byte[] value(int key, int version) {
        SplittableRandom r = new SplittableRandom((long) key << 32 ^ version);
        byte[] b = new byte[4 + r.nextInt(200)];
        ByteBuffer.wrap(b).putInt(version);
        for (int i = 4; i < b.length; i++) {
            b[i] = i % 2 == 0 ? (byte) r.nextInt() : (byte) key;
        }
        return b;
    }

    /** The version that produced {@code value} for {@code key} (-1 for null); wrong bytes throw. */
    int versionOf(int key, byte[] value) throws WrongValueException {
        if (value == null) {
            return -1;
        }
        if (value.length >= 4) {
            int version = ByteBuffer.wrap(value).getInt();
            if (version >= 0 && version < writes.size() && Arrays.equals(value, value(key, version))) {
                return version;
            }
        }
        throw new WrongValueException("key " + key + " read " + value.length + " bytes no write produced");
    }

    /** The largest k such that the state after the first k writes is {@code state}; -1 if there is none. */
    int matchingPrefix(int[] state) {
        int[] model = new int[keys];
        Arrays.fill(model, -1);
        int mismatches = 0;
        for (int key = 0; key < keys; key++) {
            if (state[key] != -1) {
                mismatches++;
            }
        }
        int best = mismatches == 0 ? 0 : -1;
        for (int n = 0; n < writes.size(); n++) {
            for (int[] op : writes.get(n)) {
                int key = op[0];
                boolean before = model[key] == state[key];
                model[key] = op[1];
                boolean after = model[key] == state[key];
                mismatches += (before ? 1 : 0) - (after ? 1 : 0);
            }
            if (mismatches == 0) {
                best = n + 1;
            }
        }
        return best;
    }

    /** A read returned bytes that no write produced. */
    static final class WrongValueException extends Exception {
        WrongValueException(String message) {
            super(message);
        }
    }
}
