package io.varve.stress.enginekill;

import io.varve.core.ColumnFamilyOptions;
import io.varve.core.Options;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The key space, values and options that the engine kill campaign's child and parent share. Each writer thread
 * of the child owns its own keys ({@code t<thread>k<index>}) in every column family, plus one marker key
 * ({@code t<thread>m}) that each batch sets in every family it touches; so the recovered state tells, thread by
 * thread, which of that thread's batches survived. A put's value is a function of (thread, family, key,
 * version), so a read's bytes name the batch that wrote them, or prove that none did; a key merged since its
 * last put reads as a value naming the hash chain of that put and every merge since ({@link KillMerge}).
 * Markers are only ever put.
 */
final class KillSpace {
    static final int THREADS = 4;
    static final int KEYS = 300;
    /** The marker's index: one past the ordinary keys, so a range over ordinary keys never covers it. */
    static final int MARKER = KEYS;
    static final List<String> FAMILIES = List.of("default", "cf1", "cf2");
    static final long ABSENT = -1;
    private static final long BUFFER = 64 << 10;

    private KillSpace() {
    }

    /** Tiny memtables in every family so that flushes, tables and compactions churn. */
    static Options options() {
        Options options = Options.defaults().withWriteBufferSize(BUFFER).withMergeOperator(KillMerge.OPERATOR);
        for (int f = 1; f < FAMILIES.size(); f++) {
            options = options.withColumnFamily(FAMILIES.get(f), familyOptions(f));
        }
        return options;
    }

    /**
     * The options of family {@code family} (other than the default). {@code cf1} folds a key's memtable
     * operands into a put once three are stacked ({@code maxSuccessiveMerges}), so merges take that path too;
     * elsewhere chains grow until a read or a compaction resolves them.
     */
    static ColumnFamilyOptions familyOptions(int family) {
        ColumnFamilyOptions options = ColumnFamilyOptions.defaults().withWriteBufferSize(BUFFER)
                .withMergeOperator(KillMerge.OPERATOR);
        return family == 1 ? options.withMaxSuccessiveMerges(3) : options;
    }

    /** A batch's version: unique across cycles, threads and batches. */
    static long version(long cycle, int thread, int index) {
        return cycle << 40 | (long) thread << 32 | index;
    }

    static byte[] key(int thread, int index) {
        String s = index == MARKER ? "t" + thread + "m" : String.format("t%dk%04d", thread, index);
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** {thread, index} of a key of this space, or null. */
    static int[] parseKey(byte[] key) {
        String s = new String(key, StandardCharsets.US_ASCII);
        try {
            if (s.length() == 3 && s.charAt(0) == 't' && s.charAt(2) == 'm') {
                return checked(Integer.parseInt(s.substring(1, 2)), MARKER);
            }
            if (s.length() == 7 && s.charAt(0) == 't' && s.charAt(2) == 'k') {
                return checked(Integer.parseInt(s.substring(1, 2)), Integer.parseInt(s.substring(3)));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    private static int[] checked(int thread, int index) {
        return thread >= 0 && thread < THREADS && index >= 0 && index <= MARKER ? new int[] {thread, index} : null;
    }

    static byte[] value(int thread, int family, int index, long version) {
        SplittableRandom r = new SplittableRandom(version * 31 + family * 1_000_003L + index);
        // Mostly small values, some up to 2 KiB, so memtables fill at different rates.
        int length = 8 + (r.nextInt(8) == 0 ? r.nextInt(2048) : r.nextInt(120));
        byte[] b = new byte[length];
        ByteBuffer.wrap(b).putLong(version);
        for (int i = 8; i < length; i++) {
            b[i] = (byte) (i % 3 == 0 ? thread + index : r.nextInt());
        }
        return b;
    }

    /** The version that wrote put value {@code value} at this place; null if no put of this campaign produced it. */
    static Long versionOf(int thread, int family, int index, byte[] value) {
        if (value.length < 8) {
            return null;
        }
        long version = ByteBuffer.wrap(value).getLong();
        return Arrays.equals(value, value(thread, family, index, version)) ? version : null;
    }

    /**
     * The state ({@link KillMerge}) that {@code value} read at this place names: the version of the put that
     * wrote it, or the hash chain of the put and the merges since; null if no write of this campaign produced it.
     */
    static Long stateOf(int thread, int family, int index, byte[] value) {
        KillMerge.Merged merged = KillMerge.parseValue(thread, family, index, value);
        return merged != null ? Long.valueOf(merged.state()) : versionOf(thread, family, index, value);
    }

    /** {@code t<thread>k<index>} or {@code t<thread>m} of a parsed key, for messages. */
    static String describe(int[] key) {
        return new String(key(key[0], key[1]), StandardCharsets.US_ASCII);
    }

    /** An empty state of one thread: per family, per key index (the marker last), {@link #ABSENT}. */
    static long[][] emptyState() {
        long[][] state = new long[FAMILIES.size()][KEYS + 1];
        for (long[] family : state) {
            Arrays.fill(family, ABSENT);
        }
        return state;
    }

    static long[][] copy(long[][] state) {
        long[][] c = new long[state.length][];
        for (int i = 0; i < state.length; i++) {
            c[i] = state[i].clone();
        }
        return c;
    }
}
