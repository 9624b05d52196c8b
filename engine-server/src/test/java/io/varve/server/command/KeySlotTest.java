package io.varve.server.command;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Slots as Redis Cluster computes them (values from the Redis Cluster specification and CLUSTER KEYSLOT). */
class KeySlotTest {

    @Test
    void crc16IsXmodem() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x31C3, KeySlot.crc16(check, 0, check.length));
    }

    @Test
    void slotsMatchRedis() {
        assertEquals(12182, slot("foo"));
        assertEquals(11058, slot("somekey"));
        assertEquals(2515, slot("foo{hash_tag}"));
        assertEquals(slot("user1000"), slot("{user1000}.following"));
        assertEquals(slot("user1000"), slot("{user1000}.followers"));
    }

    @Test
    void hashTagRules() {
        assertEquals(KeySlot.crc16(bytes("{}bar"), 0, 5) & 16383, slot("{}bar"), "an empty tag: the whole key");
        assertEquals(slot("bar"), slot("foo{bar}{zap}"), "the first tag counts");
        assertEquals(slot("{bar"), slot("foo{{bar}}zap"), "from the first '{' to the next '}'");
        assertEquals(KeySlot.crc16(bytes("foo{bar"), 0, 7) & 16383, slot("foo{bar"), "no closing brace");
        assertEquals(0, slot(""));
    }

    private static int slot(String key) {
        return KeySlot.of(bytes(key));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
