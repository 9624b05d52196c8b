package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerConfigTest {

    @Test
    void defaultsAreSafe() {
        ServerConfig c = ServerConfig.defaultConfig();
        assertEquals("127.0.0.1", c.bindAddresses().getFirst());
        assertEquals(6379, c.port());
        assertEquals(ServerConfig.Fsync.EVERYSEC, c.fsync());
        assertTrue(c.protectedMode());
        assertNull(c.requirePass());
        assertEquals(512L << 20, c.protoMaxBulkLength());
        assertEquals(1L << 30, c.queryBufferLimit());
        assertEquals(10_000, c.maxClients());
    }

    @Test
    void fileThenFlagsWin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("varve.conf");
        Files.writeString(file, """
                # a comment
                port 7000
                requirepass "with space"
                proto-max-bulk-len 1mb
                appendfsync always
                bind 127.0.0.1 ::1
                """);
        ServerConfig c = ServerConfig.fromArgs(new String[] {"--config", file.toString(), "--port", "7001"});
        assertEquals(7001, c.port());
        assertEquals("with space", c.requirePass());
        assertEquals(1 << 20, c.protoMaxBulkLength());
        assertEquals(ServerConfig.Fsync.ALWAYS, c.fsync());
        assertEquals(2, c.bindAddresses().size());
        assertEquals(file.toAbsolutePath().toString(), c.configFile());
    }

    @Test
    void badValuesFailWithTheirName() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.fromArgs(new String[] {"--appendfsync", "sometimes"}));
        assertTrue(e.getMessage().contains("appendfsync"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromArgs(new String[] {"--nosuch", "1"}));
        assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromArgs(new String[] {"--port", "70000"}));
        assertThrows(IllegalArgumentException.class, () -> ServerConfig.fromArgs(new String[] {"--port"}));
        assertEquals(1000L, ServerConfig.parseMemory("x", "1k"));
        assertEquals(1024L, ServerConfig.parseMemory("x", "1KB"));
        assertEquals(3L << 30, ServerConfig.parseMemory("x", "3gb"));
    }
}
