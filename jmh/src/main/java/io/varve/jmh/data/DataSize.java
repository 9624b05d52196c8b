package io.varve.jmh.data;

/**
 * How many entries a benchmark writes or loads. The {@code keys} parameter is the count at 100-byte values;
 * larger values get proportionally fewer entries so that every value size writes about the same number of
 * bytes ({@code keys * 116}). That keeps the suite's run time and disk use bounded across the value-size
 * sweep while still giving every engine the same data. The report uses the same formula to turn a fill's
 * time into operations per second.
 */
public final class DataSize {

    public static final int REFERENCE_VALUE_SIZE = 100;
    private static final int MIN_ENTRIES = 1000;

    private DataSize() {
    }

    public static int entries(long keys, int valueSize) {
        long bytes = keys * (Keys.KEY_SIZE + REFERENCE_VALUE_SIZE);
        long entries = bytes / (Keys.KEY_SIZE + valueSize);
        return (int) Math.max(MIN_ENTRIES, Math.min(Integer.MAX_VALUE - 8, entries));
    }

    /** Raw bytes (keys plus values) of {@code entries} entries. */
    public static long rawBytes(long entries, int valueSize) {
        return entries * (Keys.KEY_SIZE + valueSize);
    }
}
