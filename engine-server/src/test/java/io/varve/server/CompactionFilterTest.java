package io.varve.server;

import io.varve.core.Db;
import io.varve.core.DbIterator;
import io.varve.server.store.KeyEncoding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's compaction filter removes expired keys and the subkeys of dead hashes from disk, and keeps
 * everything clients can still see. The active sweep is off here, so only the filter can remove anything.
 */
class CompactionFilterTest {

    @Test
    void compactionRemovesExpiredKeysAndDeadSubkeysAndKeepsLiveData(@TempDir Path dir) throws Exception {
        AtomicLong clock = new AtomicLong(1_700_000_000_000L);
        try (TestServer server = TestServer.start(dir, c -> c, InetAddress::isLoopbackAddress, clock,
                b -> b.activeExpiry(false));
             RespClient c = RespClient.connect(server.port())) {
            c.call("SET", "live", "v");
            c.call("SET", "later", "v", "PX", "100000");
            c.call("SET", "gone", "v", "PX", "1000");
            c.call("HSET", "h", "a", "1", "b", "2");
            c.call("HSET", "hexp", "f", "1");
            c.call("PEXPIRE", "hexp", "1000");
            c.call("HSET", "hdel", "f", "1", "g", "2");
            c.call("DEL", "hdel");
            c.call("HSET", "hre", "old", "1");
            c.call("DEL", "hre");
            c.call("HSET", "hre", "new", "2");
            c.call("HSET", "hstr", "f", "1");
            c.call("SET", "hstr", "now a string");
            server.advance(Duration.ofSeconds(2));

            Db db = server.server.db();
            Records before = Records.of(db);
            assertTrue(before.metadata.containsAll(Set.of("gone", "hexp")), "expired keys are still on disk: " + before);
            assertTrue(before.subkeys.containsAll(Set.of("hdel/f", "hdel/g", "hre/old", "hexp/f", "hstr/f")),
                    "dead subkeys are still on disk: " + before);

            db.compactRange(null, null);

            Records after = Records.of(db);
            assertEquals(new TreeSet<>(Set.of("live", "later", "h", "hre", "hstr")), after.metadata);
            assertEquals(new TreeSet<>(Set.of("h/a", "h/b", "hre/new")), after.subkeys);
            assertEquals("v", c.call("GET", "live"));
            assertEquals("now a string", c.call("GET", "hstr"));
            assertEquals(List.of("a", "1", "b", "2"), c.call("HGETALL", "h"));
            assertEquals(List.of("new", "2"), c.call("HGETALL", "hre"));
            assertEquals(5L, c.call("DBSIZE"));
            String info = (String) c.call("INFO", "varve");
            assertTrue(info.contains("compaction_expired_keys:2\r\n"), info);
            assertTrue(info.contains("compaction_dead_subkeys:5\r\n"), info);
        }
    }

    /** Every client record on disk: metadata by user key, subkeys as "key/field". */
    private record Records(TreeSet<String> metadata, TreeSet<String> subkeys) {
        static Records of(Db db) {
            TreeSet<String> metadata = new TreeSet<>();
            TreeSet<String> subkeys = new TreeSet<>();
            try (DbIterator it = db.iterator()) {
                for (it.seekToFirst(); it.valid(); it.next()) {
                    byte[] key = it.key();
                    if (key[0] == KeyEncoding.METADATA_PREFIX) {
                        metadata.add(text(KeyEncoding.userKeyOfMetadata(key)));
                    } else if (key[0] == KeyEncoding.SUBKEY_PREFIX) {
                        int prefix = KeyEncoding.subkeyPrefixLength(key);
                        subkeys.add(text(KeyEncoding.userKeyOfSubkey(key, prefix)) + "/"
                                + text(KeyEncoding.fieldOfSubkey(key, prefix)));
                    }
                }
            }
            return new Records(metadata, subkeys);
        }

        private static String text(byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
    }
}
