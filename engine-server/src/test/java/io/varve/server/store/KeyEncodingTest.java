package io.varve.server.store;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The byte layout documented in docs/server.md, checked byte by byte. */
class KeyEncodingTest {

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    @Test
    void metadataKeyIsPrefixPlusUserKey() {
        assertEquals("6d" + "666f6f", hex(KeyEncoding.metadataKey("foo".getBytes())));
        assertArrayEquals("foo".getBytes(), KeyEncoding.userKeyOfMetadata(KeyEncoding.metadataKey("foo".getBytes())));
    }

    @Test
    void subkeyLayout() {
        byte[] sub = KeyEncoding.subkey("foo".getBytes(), 0x0102030405060708L, "f".getBytes());
        assertEquals("73" + "00000003" + "666f6f" + "0102030405060708" + "66", hex(sub));
        byte[] prefix = KeyEncoding.subkeyPrefix("foo".getBytes(), 0x0102030405060708L);
        assertArrayEquals(Arrays.copyOf(sub, prefix.length), prefix);
        assertArrayEquals("f".getBytes(), KeyEncoding.fieldOfSubkey(sub, prefix.length));
    }

    @Test
    void metadataValues() {
        byte[] string = Metadata.string("hi".getBytes(), 0x1122L).encode();
        assertEquals("00" + "0000000000001122" + "6869", hex(string));
        byte[] hash = Metadata.collection(RedisType.HASH, 0, 7, 3).encode();
        assertEquals("01" + "0000000000000000" + "0000000000000007" + "0000000000000003", hex(hash));
        Metadata decoded = Metadata.decode(hash);
        assertEquals(RedisType.HASH, decoded.type());
        assertEquals(7, decoded.version());
        assertEquals(3, decoded.size());
        assertArrayEquals("hi".getBytes(), Metadata.decode(string).value());
        assertEquals(0x1122L, Metadata.decodeHeader(string).expireAt());
    }

    @Test
    void prefixEnd() {
        assertArrayEquals(new byte[] {'a', 'c'}, KeyEncoding.prefixEnd(new byte[] {'a', 'b'}));
        assertArrayEquals(new byte[] {'b'}, KeyEncoding.prefixEnd(new byte[] {'a', (byte) 0xFF}));
        assertNull(KeyEncoding.prefixEnd(new byte[] {(byte) 0xFF}));
    }

    /** Subkeys of one key and version are contiguous: no other key's subkey sorts between them. */
    @Property(tries = 500)
    void subkeysOfDifferentKeysNeverInterleave(@ForAll byte[] keyA, @ForAll byte[] keyB, @ForAll long version,
                                               @ForAll byte[] field, @ForAll byte[] otherField) {
        if (Arrays.equals(keyA, keyB)) {
            return;
        }
        byte[] prefixA = KeyEncoding.subkeyPrefix(keyA, version);
        byte[] endA = KeyEncoding.prefixEnd(prefixA);
        byte[] b = KeyEncoding.subkey(keyB, version, otherField);
        boolean inside = Arrays.compareUnsigned(b, prefixA) >= 0 && (endA == null || Arrays.compareUnsigned(b, endA) < 0);
        assertTrue(!inside, "a subkey of another key fell inside this key's range");
        byte[] a = KeyEncoding.subkey(keyA, version, field);
        assertTrue(Arrays.compareUnsigned(a, prefixA) >= 0 && (endA == null || Arrays.compareUnsigned(a, endA) < 0));
    }

    /** "foo" hashes to slot 12182 (0x2f96), as Redis's CLUSTER KEYSLOT foo answers. */
    @Test
    void slottedKeysCarryTheSlotAfterTheirFirstByte() {
        byte[] meta = Database.SLOTTED.metadataKey("foo".getBytes());
        assertEquals("4d" + "2f96" + "666f6f", hex(meta));
        assertEquals(12182, KeyEncoding.slotOf(meta));
        assertArrayEquals("foo".getBytes(), KeyEncoding.userKeyOfMetadata(meta));
        assertTrue(KeyEncoding.isMetadataKey(meta));
        assertEquals(0, KeyEncoding.databaseOfMetadata(meta));

        byte[] sub = Database.SLOTTED.subkey("foo".getBytes(), 0x0102030405060708L, "f".getBytes());
        assertEquals("53" + "2f96" + "00000003" + "666f6f" + "0102030405060708" + "66", hex(sub));
        int prefix = KeyEncoding.subkeyPrefixLength(sub);
        assertArrayEquals(Database.SLOTTED.subkeyPrefix("foo".getBytes(), 0x0102030405060708L),
                Arrays.copyOf(sub, prefix));
        assertArrayEquals("foo".getBytes(), KeyEncoding.userKeyOfSubkey(sub, prefix));
        assertEquals(0x0102030405060708L, KeyEncoding.versionOfSubkey(sub, prefix));
        assertArrayEquals("f".getBytes(), KeyEncoding.fieldOfSubkey(sub, prefix));
        assertArrayEquals(meta, KeyEncoding.metadataKeyOfSubkey(sub, prefix, 0));
        assertEquals(12182, KeyEncoding.slotOf(sub));

        assertEquals(-1, KeyEncoding.slotOf(KeyEncoding.metadataKey("foo".getBytes())));
        assertEquals(-1, KeyEncoding.slotOf(KeyEncoding.internalKey("version-floor")));
    }

    /** A key of slot s sorts inside [slotStart(s), slotStart(s + 1)) and outside every other slot's range. */
    @Property(tries = 500)
    void aSlotsKeysAreOneRangeOfMetadataAndOneOfSubkeys(@ForAll byte[] key, @ForAll long version,
                                                        @ForAll byte[] field) {
        int slot = HashSlot.of(key);
        byte[] meta = Database.SLOTTED.metadataKey(key);
        byte[] sub = Database.SLOTTED.subkey(key, version, field);
        assertTrue(Arrays.compareUnsigned(meta, KeyEncoding.slotMetadataStart(slot)) >= 0);
        assertTrue(Arrays.compareUnsigned(meta, KeyEncoding.slotMetadataStart(slot + 1)) < 0);
        assertTrue(Arrays.compareUnsigned(sub, KeyEncoding.slotSubkeyStart(slot)) >= 0);
        assertTrue(Arrays.compareUnsigned(sub, KeyEncoding.slotSubkeyStart(slot + 1)) < 0);
        byte[][] all = KeyEncoding.allMetadataBounds(true);
        assertTrue(Arrays.compareUnsigned(meta, all[0]) >= 0 && Arrays.compareUnsigned(meta, all[1]) < 0);
        assertTrue(Arrays.compareUnsigned(sub, all[0]) < 0 || Arrays.compareUnsigned(sub, all[1]) >= 0,
                "subkeys lie outside the metadata bounds");
    }
}
