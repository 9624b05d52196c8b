package io.varve.kafka.streams.store;

import java.util.Arrays;

/** Unsigned-byte key arithmetic for turning Kafka's inclusive ranges and prefixes into engine bounds. */
public final class KeyRanges {

    /**
     * The warning Kafka's own stores log for a range whose lower end sorts after its upper end; applications
     * and Kafka's tests look for this exact text.
     */
    public static final String INVALID_RANGE_WARNING = "Returning empty iterator for fetch with invalid key range: from > to."
            + " This may be due to range arguments set in the wrong order,"
            + " or serdes that don't preserve ordering when lexicographically comparing the serialized bytes."
            + " Note that the built-in numerical serdes do not follow this for negative numbers";

    private static final System.Logger LOG = System.getLogger(KeyRanges.class.getName());

    private KeyRanges() {
    }

    /** The smallest key greater than {@code key}: the exclusive bound that makes {@code key} inclusive. */
    public static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    /**
     * The smallest key greater than every key starting with {@code prefix}, or null when there is none (an
     * empty prefix or one of all 0xff bytes: the range then runs to the end).
     */
    public static byte[] prefixEnd(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    /** True, after logging Kafka's warning, when both ends are given and {@code from} sorts after {@code to}. */
    public static boolean invalid(byte[] from, byte[] to) {
        if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
            LOG.log(System.Logger.Level.WARNING, INVALID_RANGE_WARNING);
            return true;
        }
        return false;
    }
}
