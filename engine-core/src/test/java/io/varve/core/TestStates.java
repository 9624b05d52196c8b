package io.varve.core;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Helpers to read a whole database into a comparable form and to replay acknowledged writes into a model. */
public final class TestStates {

    private TestStates() {
    }

    /** One acknowledged write: a batch of puts (value != null) and deletes (value == null). */
    public record Write(List<Map.Entry<String, byte[]>> ops, boolean synced) {
        void applyTo(TreeMap<String, String> model) {
            for (Map.Entry<String, byte[]> op : ops) {
                if (op.getValue() == null) {
                    model.remove(op.getKey());
                } else {
                    model.put(op.getKey(), HexFormat.of().formatHex(op.getValue()));
                }
            }
        }

        public WriteBatch toBatch() {
            WriteBatch batch = new WriteBatch();
            for (Map.Entry<String, byte[]> op : ops) {
                byte[] key = HexFormat.of().parseHex(op.getKey());
                if (op.getValue() == null) {
                    batch.delete(key);
                } else {
                    batch.put(key, op.getValue());
                }
            }
            return batch;
        }
    }

    /** The database's contents as hex key -> hex value, through a full forward scan. */
    public static TreeMap<String, String> contents(Db db) {
        TreeMap<String, String> state = new TreeMap<>();
        try (DbIterator it = db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                state.put(HexFormat.of().formatHex(it.key()), HexFormat.of().formatHex(it.value()));
            }
        }
        return state;
    }

    /**
     * The length of the prefix of {@code writes} (applied on top of {@code base}) that produces {@code actual},
     * searching only prefixes of at least {@code minimum} writes; -1 if none does.
     */
    public static int matchingPrefix(TreeMap<String, String> base, List<Write> writes, int minimum,
                              TreeMap<String, String> actual) {
        TreeMap<String, String> model = new TreeMap<>(base);
        for (int i = 0; i < minimum; i++) {
            writes.get(i).applyTo(model);
        }
        for (int length = minimum; ; length++) {
            if (model.equals(actual)) {
                return length;
            }
            if (length == writes.size()) {
                return -1;
            }
            writes.get(length).applyTo(model);
        }
    }

    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    public static byte[] randomBytes(java.util.Random random, int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(b);
        return b;
    }

    public static boolean sameBytes(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }

    /** Whether {@code error}, its causes or anything suppressed along the way is of type {@code type}. */
    public static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (causedBy(suppressed, type)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Closes {@code db} and returns {@code error}, or the close's own failure if there was none before. */
    public static Throwable closeKeepingFirstError(Db db, Throwable error) {
        try {
            db.close();
        } catch (RuntimeException e) {
            return error == null ? e : error;
        }
        return error;
    }

    /**
     * Closes the instance a simulated crash left behind, whose file handles belong to a dead process: its final
     * log sync or flush may fail, and must not touch the state the crash left.
     */
    public static void closeAfterCrash(Db db) {
        try {
            db.close();
        } catch (RuntimeException expected) {
            // the crashed instance's files are gone
        }
    }
}
