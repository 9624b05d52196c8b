package io.varve.server;

import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Databases, CONFIG SET, SLOWLOG and CLIENT administration through a real client library, both protocols. */
class LettuceServerCommandsTest extends OneServerPerClass {

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void databasesThroughLettuce(ProtocolVersion p) {
        try (Lettuce l = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            r.flushall();
            r.set("k", "zero");
            assertEquals("OK", r.select(2));
            assertNull(r.get("k"));
            r.set("k", "two");
            assertEquals("OK", r.swapdb(0, 2));
            assertEquals("zero", r.get("k"), "database 2 now holds what 0 held");
            assertTrue(r.move("k", 5));
            assertEquals(0L, r.exists("k"));
            r.select(5);
            assertEquals("zero", r.get("k"));
            r.flushdb();
            assertEquals(0L, r.dbsize());
            r.select(0);
            assertEquals("two", r.get("k"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void administrationThroughLettuce(ProtocolVersion p) {
        try (Lettuce l = connect(p); Lettuce victim = connect(p)) {
            RedisCommands<String, String> r = l.sync();
            assertEquals("OK", r.configSet(Map.of("slowlog-log-slower-than", "0")));
            assertEquals(Map.of("slowlog-log-slower-than", "0"), r.configGet("slowlog-log-slower-than"));
            r.slowlogReset();
            r.append("x", "y");
            List<Object> entries = r.slowlogGet(2);
            assertEquals(2, entries.size());
            assertTrue(r.slowlogLen() >= 2);
            assertEquals("OK", r.configResetstat());
            assertEquals("OK", r.configSet(Map.of("slowlog-log-slower-than", "10000")));
            long id = victim.sync().clientId();
            assertEquals(1L, r.clientKill(KillArgs.Builder.id(id)));
            assertEquals("OK", r.clientPause(10));
        }
    }
}
