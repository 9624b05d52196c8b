package io.varve.server.command;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Function libraries are kept in the engine: they survive a restart and FLUSHALL, and FUNCTION FLUSH removes them. */
class FunctionPersistenceTest {

    private static final String LIBRARY = "#!lua name=counter\n"
            + "redis.register_function('bump', function(keys) return redis.call('incr', keys[1]) end)";

    @Test
    void librariesSurviveARestartAndFlushall() throws Exception {
        try (InProcessServer server = new InProcessServer()) {
            assertEquals("$7\r\ncounter\r\n", server.call("FUNCTION", "LOAD", LIBRARY));
            assertEquals(":1\r\n", server.call("FCALL", "bump", "1", "n"));
            assertEquals("+OK\r\n", server.call("FLUSHALL"));
            server.restart();
            assertEquals(":1\r\n", server.call("FCALL", "bump", "1", "n"), "the library came back with the engine");
            assertEquals("+OK\r\n", server.call("FUNCTION", "DELETE", "counter"));
            server.restart();
            assertEquals("-ERR Function not found\r\n", server.call("FCALL", "bump", "1", "n"), "so did its deletion");
        }
    }
}
