package io.varve.server.command;

import io.varve.core.DbIterator;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.Metadata;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sorted-set layout on disk: the exact bytes of both subkey kinds, and that a set deleted (or expired,
 * or overwritten) and created again never shows its old members — before compaction, because readers only
 * look at the live version, and after it, because the compaction filter dropped both kinds of old subkeys.
 */
class ZSetEncodingTest {

    /** Every subkey on disk as "hex of the suffix after the version", for the key {@code user}. */
    private static List<String> subkeys(InProcessServer s, String user) {
        List<String> out = new ArrayList<>();
        try (DbIterator it = s.db.iterator()) {
            for (it.seekToFirst(); it.valid(); it.next()) {
                byte[] k = it.key();
                if (k[0] != KeyEncoding.SUBKEY_PREFIX) {
                    continue;
                }
                int prefix = KeyEncoding.subkeyPrefixLength(k);
                if (new String(KeyEncoding.userKeyOfSubkey(k, prefix), StandardCharsets.UTF_8).equals(user)) {
                    out.add(HexFormat.of().formatHex(KeyEncoding.fieldOfSubkey(k, prefix)) + "="
                            + HexFormat.of().formatHex(it.value()));
                }
            }
        }
        return out;
    }

    private static long version(InProcessServer s, String user) {
        return Metadata.decode(s.db.get(KeyEncoding.metadataKey(user.getBytes(StandardCharsets.UTF_8)))).version();
    }

    @Test
    void bothSubkeyKindsHaveTheDocumentedBytes() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("ZADD", "z", "1.5", "a", "-2", "b");
            // Member subkeys (tag 00) sort first, by member; score subkeys (tag 01) by sortable score, member.
            assertEquals(List.of(
                    "0061=3ff8000000000000",
                    "0062=c000000000000000",
                    "013fffffffffffffff62=",
                    "01bff800000000000061="), subkeys(s, "z"));
            byte[] meta = s.db.get(KeyEncoding.metadataKey("z".getBytes(StandardCharsets.UTF_8)));
            assertEquals("04" + "0000000000000000" + String.format("%016x", version(s, "z")) + "0000000000000002",
                    HexFormat.of().formatHex(meta));
        }
    }

    @Test
    void aRecreatedSetNeverShowsOldMembersBeforeOrAfterCompaction() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("ZADD", "z", "1", "old1", "2", "old2", "3", "old3");
            long first = version(s, "z");
            s.call("DEL", "z");
            s.call("ZADD", "z", "5", "new");
            assertEquals("*2\r\n$3\r\nnew\r\n$1\r\n5\r\n", s.call("ZRANGE", "z", "0", "-1", "WITHSCORES"));
            assertEquals("*1\r\n$3\r\nnew\r\n", s.call("ZRANGEBYSCORE", "z", "-inf", "+inf"));
            assertEquals("*1\r\n$3\r\nnew\r\n", s.call("ZRANGEBYLEX", "z", "-", "+"));
            assertEquals("$-1\r\n", s.call("ZSCORE", "z", "old1"));
            assertEquals(8, subkeys(s, "z").size(), "the old version's six subkeys are still on disk");
            s.call("SET", "z", "string now");
            s.call("ZADD", "z", "7", "newer");
            s.call("PEXPIRE", "z", "10");
            s.clock.addAndGet(11);
            s.call("ZADD", "z", "9", "newest");
            assertEquals("*1\r\n$6\r\nnewest\r\n", s.call("ZRANGE", "z", "0", "-1"));
            assertTrue(first < version(s, "z"), "every re-creation takes a newer version");
            s.db.flush();
            s.db.compactRange(null, null);
            assertEquals("*1\r\n$6\r\nnewest\r\n", s.call("ZRANGE", "z", "0", "-1"));
            assertEquals("*1\r\n$6\r\nnewest\r\n", s.call("ZREVRANGEBYSCORE", "z", "+inf", "-inf"));
            assertEquals(List.of("006e6577657374=4022000000000000", "01c0220000000000006e6577657374="),
                    subkeys(s, "z"), "compaction dropped every subkey of the old versions, of both kinds");
        }
    }

    @Test
    void removedMembersLeaveNoSubkeysOfEitherKind() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("ZADD", "z", "1", "a", "2", "b", "3", "c");
            s.call("ZINCRBY", "z", "10", "a");
            s.call("ZREM", "z", "b");
            s.call("ZPOPMAX", "z");
            assertEquals(List.of("0063=4008000000000000", "01c00800000000000063="), subkeys(s, "z"));
            s.call("ZREM", "z", "c");
            assertEquals("+none\r\n", s.call("TYPE", "z"), "an emptied set is deleted");
        }
    }
}
