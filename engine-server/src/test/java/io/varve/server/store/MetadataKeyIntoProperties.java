package io.varve.server.store;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Encoding a metadata key into a reused array gives exactly the bytes of the allocating encoder. */
class MetadataKeyIntoProperties {

    @Property(tries = 300)
    void writesWhatMetadataKeyReturnsOrNothing(@ForAll @Size(max = 300) byte[] userKey,
                                               @ForAll @IntRange(min = 0, max = KeyEncoding.MAX_DATABASES - 1) int database,
                                               @ForAll @IntRange(min = 0, max = 300) int room) throws Exception {
        byte[] expected = KeyEncoding.metadataKey(database, userKey);
        byte[] destination = new byte[room];
        Arrays.fill(destination, (byte) 0x5A);
        int length = ScopedValue.where(KeyEncoding.DATABASE, database)
                .call(() -> KeyEncoding.metadataKeyInto(userKey, destination));
        if (expected.length > room) {
            assertEquals(-1, length);
            byte[] untouched = new byte[room];
            Arrays.fill(untouched, (byte) 0x5A);
            assertArrayEquals(untouched, destination, "nothing is written when the key does not fit");
        } else {
            assertEquals(expected.length, length);
            assertArrayEquals(expected, Arrays.copyOf(destination, length));
        }
    }
}
