package io.varve.server;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer-group reader blocked on a stream is failed, as Redis 7 fails it, when the stream goes away under it
 * (deleted, overwritten with another type, flushed), instead of waiting forever. Writes start only once the
 * server's registry shows the reader parked.
 */
class StreamGroupUnblockTest extends OneServerPerClass {

    private static final RespClient.Err GONE = new RespClient.Err("UNBLOCKED the stream key no longer exists");

    @ParameterizedTest
    @ValueSource(strings = {"DEL", "SET", "FLUSHDB", "FLUSHALL", "MULTI-DEL"})
    void blockedGroupReaderFailsWhenTheStreamGoes(String how) throws Exception {
        try (RespClient reader = RespClient.connect(server.port()); RespClient writer = RespClient.connect(server.port())) {
            writer.call("FLUSHALL");
            writer.call("XADD", "s", "1-0", "f", "v");
            writer.call("XGROUP", "CREATE", "s", "g", "$");
            reader.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            assertTrue(server.server.keyspace().blocking().awaitWaiting("s".getBytes(StandardCharsets.UTF_8), 1,
                    10_000), "reader parked");
            switch (how) {
                case "DEL" -> writer.call("DEL", "s");
                case "SET" -> writer.call("SET", "s", "not a stream");
                case "FLUSHDB" -> writer.call("FLUSHDB");
                case "FLUSHALL" -> writer.call("FLUSHALL");
                default -> {
                    writer.call("MULTI");
                    writer.call("DEL", "s");
                    writer.call("EXEC");
                }
            }
            assertEquals(GONE, reader.read());
            assertEquals("PONG", reader.call("PING"));
        }
    }

    /** As Redis counts it: the call when it ran, and its failure and error reply when its wait ended in one. */
    @org.junit.jupiter.api.Test
    void aReaderFailedWhenItsGroupIsDestroyedCountsAFailedCallAndAnErrorReply() throws Exception {
        try (RespClient reader = RespClient.connect(server.port()); RespClient writer = RespClient.connect(server.port())) {
            writer.call("FLUSHALL");
            writer.call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            writer.call("CONFIG", "RESETSTAT");
            reader.send("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">");
            assertTrue(server.server.keyspace().blocking().awaitWaiting("s".getBytes(StandardCharsets.UTF_8), 1,
                    10_000), "reader parked");
            writer.call("XGROUP", "DESTROY", "s", "g");
            RespClient.Err error = (RespClient.Err) reader.read();
            assertTrue(error.text().startsWith("NOGROUP"), error.text());
            String errorStats = (String) writer.call("INFO", "errorstats");
            assertTrue(errorStats.contains("errorstat_NOGROUP:count=1"), errorStats);
            String commandStats = (String) writer.call("INFO", "commandstats");
            assertTrue(commandStats.contains("cmdstat_xreadgroup:calls=1,") && commandStats.contains(
                    "rejected_calls=0,failed_calls=1"), commandStats);
            assertEquals(1L, writer.infoStat("total_error_replies"));
        }
    }
}
