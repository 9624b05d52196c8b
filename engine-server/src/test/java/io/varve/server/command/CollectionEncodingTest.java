package io.varve.server.command;

import io.varve.core.DbIterator;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.ListStore;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lists and sets on disk: positions sort in list order on both sides of the first push, a deleted and
 * re-created collection never shows its old elements, and compaction removes those old elements.
 */
class CollectionEncodingTest {

    @Test
    void listPositionsSortInListOrderAcrossZero() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("RPUSH", "l", "0", "1");
            s.call("LPUSH", "l", "-1", "-2", "-3");
            Metadata meta = metadata(s, "l");
            assertEquals(RedisType.LIST, meta.type());
            assertEquals(-3, ListStore.head(meta));
            assertEquals(2, ListStore.tail(meta));
            assertEquals(5, meta.size());
            assertEquals(List.of("-3", "-2", "-1", "0", "1"), subkeyValues(s, "l"), "engine order is list order");
            byte[] first = subkeys(s, "l").getFirst();
            int prefix = KeyEncoding.subkeyPrefixLength(first);
            assertEquals(0x7F, KeyEncoding.fieldOfSubkey(first, prefix)[0] & 0xFF, "-3 is offset-binary 0x7FFF..FD");
        }
    }

    @Test
    void recreatedCollectionsNeverShowOldElementsBeforeOrAfterCompaction() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("RPUSH", "l", "old1", "old2", "old3");
            s.call("SADD", "s", "old1", "old2");
            long oldList = metadata(s, "l").version();
            long oldSet = metadata(s, "s").version();
            s.call("DEL", "l", "s");
            s.call("RPUSH", "l", "new");
            s.call("SADD", "s", "new");
            assertTrue(metadata(s, "l").version() != oldList && metadata(s, "s").version() != oldSet);
            assertVisible(s);
            assertEquals(4, subkeys(s, "l").size(), "the old list's subkeys are garbage until compaction");
            assertEquals(3, subkeys(s, "s").size());
            s.db.compactRange(null, null);
            assertVisible(s);
            assertEquals(List.of("new"), subkeyValues(s, "l"));
            assertEquals(1, subkeys(s, "s").size());
            s.call("SET", "l", "string now");
            s.call("RPUSH", "x", "a");
            s.call("PEXPIRE", "x", "10");
            s.clock.addAndGet(10);
            s.call("RPUSH", "x", "b");
            assertEquals("*1\r\n$1\r\nb\r\n", s.call("LRANGE", "x", "0", "-1"), "an expired list is not resurrected");
            s.db.compactRange(null, null);
            assertEquals(0, subkeys(s, "l").size(), "a list overwritten by a string leaves nothing");
            assertEquals(List.of("b"), subkeyValues(s, "x"));
        }
    }

    private static void assertVisible(InProcessServer s) {
        assertEquals("*1\r\n$3\r\nnew\r\n", s.call("LRANGE", "l", "0", "-1"));
        assertEquals("$3\r\nnew\r\n", s.call("LINDEX", "l", "0"));
        assertEquals("*1\r\n$3\r\nnew\r\n", s.call("SMEMBERS", "s"));
        assertEquals(":0\r\n", s.call("SISMEMBER", "s", "old1"));
        assertEquals(":1\r\n", s.call("SCARD", "s"));
    }

    private static Metadata metadata(InProcessServer s, String key) {
        return Metadata.decode(s.db.get(KeyEncoding.metadataKey(key.getBytes(StandardCharsets.UTF_8))));
    }

    /** Every subkey of {@code key}, of any version, in engine order. */
    private static List<byte[]> subkeys(InProcessServer s, String key) {
        List<byte[]> out = new ArrayList<>();
        try (DbIterator it = s.db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] k = it.key();
                int prefix = KeyEncoding.subkeyPrefixLength(k);
                if (k[0] == KeyEncoding.SUBKEY_PREFIX && prefix > 0
                        && new String(KeyEncoding.userKeyOfSubkey(k, prefix), StandardCharsets.UTF_8).equals(key)) {
                    out.add(k);
                }
            }
        }
        return out;
    }

    private static List<String> subkeyValues(InProcessServer s, String key) {
        List<String> out = new ArrayList<>();
        for (byte[] k : subkeys(s, key)) {
            out.add(new String(s.db.get(k), StandardCharsets.UTF_8));
        }
        return out;
    }
}
