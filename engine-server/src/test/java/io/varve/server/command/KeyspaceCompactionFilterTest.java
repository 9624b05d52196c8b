package io.varve.server.command;

import io.varve.core.compaction.CompactionFilter;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.KeyspaceCompactionFilter;
import io.varve.server.store.Metadata;
import io.varve.server.store.RedisType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The filter's decisions on single records, including records it must not judge. */
class KeyspaceCompactionFilterTest {

    private static final byte[] VALUE = {1};

    @Test
    void keepsWhatItCannotParseOrDoesNotOwn() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            KeyspaceCompactionFilter f = s.filter;
            assertEquals(CompactionFilter.KEEP, f.filter(1, new byte[0], VALUE));
            assertEquals(CompactionFilter.KEEP, f.filter(1, KeyEncoding.internalKey("version-floor"), new byte[8]));
            assertEquals(CompactionFilter.KEEP, f.filter(1, new byte[] {'s', 0, 0}, VALUE), "too short for a subkey");
            byte[] lying = ByteBuffer.allocate(1 + 4 + 2 + 8).put((byte) 's').putInt(1000).array();
            assertEquals(CompactionFilter.KEEP, f.filter(1, lying, VALUE), "declares a key longer than itself");
            byte[] meta = KeyEncoding.metadataKey("k".getBytes());
            assertEquals(CompactionFilter.KEEP, f.filter(1, meta, new byte[3]), "too short for metadata");
            byte[] newerFormat = Metadata.string("v".getBytes(), 1).encode();
            newerFormat[0] = 0x10;
            assertEquals(CompactionFilter.KEEP, f.filter(1, meta, newerFormat), "a format this server does not know");
            assertEquals(CompactionFilter.REMOVE, f.filter(1, meta, Metadata.string("v".getBytes(), 1).encode()));
            assertEquals(CompactionFilter.KEEP, f.filter(1, meta, Metadata.string("v".getBytes(), 0).encode()));
        }
    }

    @Test
    void keepsSubkeysWhileItCannotLookTheirMetadataUp() throws Exception {
        KeyspaceCompactionFilter detached = new KeyspaceCompactionFilter(() -> 0);
        byte[] orphan = KeyEncoding.subkey("nobody".getBytes(), 7, "f".getBytes());
        assertEquals(CompactionFilter.KEEP, detached.filter(1, orphan, VALUE), "not attached to a database yet");
        InProcessServer s = new InProcessServer();
        s.close();
        assertEquals(CompactionFilter.KEEP, s.filter.filter(1, orphan, VALUE), "database closed");
    }

    @Test
    void judgesSubkeysByTheirHashesCurrentMetadata() throws Exception {
        try (InProcessServer s = new InProcessServer()) {
            s.call("HSET", "h", "a", "1", "b", "2");
            long version = version(s, "h");
            byte[] a = KeyEncoding.subkey("h".getBytes(), version, "a".getBytes());
            byte[] b = KeyEncoding.subkey("h".getBytes(), version, "b".getBytes());
            assertEquals(CompactionFilter.KEEP, s.filter.filter(1, a, VALUE));
            assertEquals(CompactionFilter.REMOVE, s.filter.filter(1,
                    KeyEncoding.subkey("h".getBytes(), version - 1, "a".getBytes()), VALUE), "another version");
            s.call("DEL", "h");
            // A key not above the last one judged means another compaction: the "live" verdict is not reused.
            assertEquals(CompactionFilter.REMOVE, s.filter.filter(1, a, VALUE));
            assertEquals(CompactionFilter.REMOVE, s.filter.filter(1, b, VALUE));
            s.call("HSET", "e", "f", "1");
            s.call("PEXPIRE", "e", "10");
            byte[] e = KeyEncoding.subkey("e".getBytes(), version(s, "e"), "f".getBytes());
            s.clock.addAndGet(10);
            assertEquals(CompactionFilter.REMOVE, s.filter.filter(1, e, VALUE), "expired hash");
            assertEquals(4, s.filter.subkeysRemoved());
        }
    }

    /**
     * A server with more than 16 databases attaches the filter to its database before it has read how many
     * physical databases exist: a compaction in between must not take a collection of database 16 or up for
     * dead.
     */
    @Test
    void keepsSubkeysUntilItKnowsHowManyDatabasesExist() throws Exception {
        try (InProcessServer s = new InProcessServer(20)) {
            assertEquals("+OK\r\n", s.call("SELECT", "18"));
            assertEquals(":2\r\n", s.call("HSET", "h", "a", "1", "b", "2"));
            long version = version(s, 18, "h");
            byte[] a = KeyEncoding.subkey("h".getBytes(), version, "a".getBytes());
            s.db.flush();
            s.restart();
            KeyspaceCompactionFilter starting = new KeyspaceCompactionFilter(s.clock::get);
            starting.attach(s.db);
            assertEquals(CompactionFilter.KEEP, starting.filter(1, a, VALUE), "attached, database count unknown");
            starting.physicalDatabases(20);
            assertEquals(CompactionFilter.KEEP, starting.filter(2, a, VALUE), "live in database 18");
            s.db.compactRange(null, null);
            assertEquals("+OK\r\n", s.call("SELECT", "18"));
            assertEquals("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", s.call("HGETALL", "h"));
            assertEquals(0, s.filter.subkeysRemoved());
        }
    }

    private static long version(InProcessServer s, String key) {
        return version(s, 0, key);
    }

    private static long version(InProcessServer s, int physicalDatabase, String key) {
        Metadata meta = Metadata.decode(s.db.get(KeyEncoding.metadataKey(physicalDatabase, key.getBytes())));
        assertEquals(RedisType.HASH, meta.type());
        return meta.version();
    }
}
