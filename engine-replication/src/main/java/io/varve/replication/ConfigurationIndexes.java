package io.varve.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The indexes of the configuration entries in a group's log, ascending, stored as one key of the group's
 * state ({@code conf}: 8 bytes per index, big-endian). Configuration changes are rare, so the list stays short;
 * it lets {@code init} find every configuration entry without reading the whole log. Immutable.
 */
record ConfigurationIndexes(long[] indexes) {
    static final ConfigurationIndexes NONE = new ConfigurationIndexes(new long[0]);

    static ConfigurationIndexes decode(byte[] bytes) throws IOException {
        if (bytes == null) {
            return NONE;
        }
        if (bytes.length % Long.BYTES != 0) {
            throw new IOException("damaged configuration index list: " + bytes.length + " bytes");
        }
        long[] out = new long[bytes.length / Long.BYTES];
        ByteBuffer in = ByteBuffer.wrap(bytes);
        for (int i = 0; i < out.length; i++) {
            out[i] = in.getLong();
            if (i > 0 && out[i] <= out[i - 1]) {
                throw new IOException("damaged configuration index list: not ascending at " + out[i]);
            }
        }
        return new ConfigurationIndexes(out);
    }

    byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(indexes.length * Long.BYTES);
        for (long index : indexes) {
            out.putLong(index);
        }
        return out.array();
    }

    boolean isEmpty() {
        return indexes.length == 0;
    }

    /** Those below {@code index}. */
    ConfigurationIndexes below(long index) {
        int n = 0;
        while (n < indexes.length && indexes[n] < index) {
            n++;
        }
        return n == indexes.length ? this : new ConfigurationIndexes(Arrays.copyOf(indexes, n));
    }

    /** Those at or above {@code index}. */
    ConfigurationIndexes from(long index) {
        int n = 0;
        while (n < indexes.length && indexes[n] < index) {
            n++;
        }
        return n == 0 ? this : new ConfigurationIndexes(Arrays.copyOfRange(indexes, n, indexes.length));
    }

    /** These followed by {@code more} (ascending, all above the last of these). */
    ConfigurationIndexes plus(long[] more, int count) {
        if (count == 0) {
            return this;
        }
        long[] out = Arrays.copyOf(indexes, indexes.length + count);
        System.arraycopy(more, 0, out, indexes.length, count);
        return new ConfigurationIndexes(out);
    }

    boolean sameAs(ConfigurationIndexes other) {
        return Arrays.equals(indexes, other.indexes);
    }
}
