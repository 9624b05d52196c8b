package io.varve.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Expired keys are removed in the background, not just hidden. */
class ExpiryTest {

    @Test
    void activeExpiryRemovesKeysNobodyTouches(@TempDir Path dir) throws Exception {
        try (TestServer server = TestServer.start(dir); RespClient c = RespClient.connect(server.port())) {
            for (int i = 0; i < 50; i++) {
                c.call("SET", "tmp" + i, "v", "PX", "100");
            }
            c.call("SET", "keep", "v");
            server.advance(Duration.ofSeconds(1));
            long deadline = System.nanoTime() + 20_000_000_000L;
            String stats = "";
            while (System.nanoTime() < deadline) {
                stats = (String) c.call("INFO", "stats");
                if (stats.contains("expired_keys:50\r\n")) {
                    break;
                }
                Thread.onSpinWait();
            }
            assertTrue(stats.contains("expired_keys:50\r\n"), stats);
            assertEquals(1L, c.call("DBSIZE"));
        }
    }
}
