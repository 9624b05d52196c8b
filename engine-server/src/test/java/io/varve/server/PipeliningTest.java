package io.varve.server;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Pipelined commands are answered in order, whatever mix of reads, writes and errors they are. */
class PipeliningTest extends OneServerPerClass {


    @ParameterizedTest
    @EnumSource(ProtocolVersion.class)
    void lettuceAsyncWithoutAutoflush(ProtocolVersion p) throws Exception {
        try (Lettuce l = Lettuce.connect(server.port(), p)) {
            String key = "pipe-" + p;
            l.connection.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> a = l.async();
            List<RedisFuture<Long>> increments = new ArrayList<>();
            List<RedisFuture<String>> reads = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                increments.add(a.incr(key));
                reads.add(a.get(key));
            }
            l.connection.flushCommands();
            for (int i = 0; i < 2000; i++) {
                assertEquals(i + 1, increments.get(i).get(10, TimeUnit.SECONDS));
                assertEquals(Integer.toString(i + 1), reads.get(i).get(10, TimeUnit.SECONDS),
                        "each GET sees exactly the INCRs before it");
            }
        }
    }

    @Test
    void rawPipelineOfMixedCommandsKeepsOrder() throws Exception {
        try (RespClient c = RespClient.connect(server.port())) {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            int n = 5000;
            for (int i = 0; i < n; i++) {
                switch (i % 4) {
                    case 0 -> batch.writeBytes(RespClient.encode("SET", "raw" + i, "v" + i));
                    case 1 -> batch.writeBytes(RespClient.encode("GET", "raw" + (i - 1)));
                    case 2 -> batch.writeBytes(RespClient.encode("NOSUCHCOMMAND", Integer.toString(i)));
                    default -> batch.writeBytes(("ECHO e" + i + "\r\n").getBytes());
                }
            }
            c.sendRaw(batch.toByteArray()); // one write: far more than one batch of the server's drainer
            for (int i = 0; i < n; i++) {
                Object reply = c.read();
                Object expected = switch (i % 4) {
                    case 0 -> "OK";
                    case 1 -> "v" + (i - 1);
                    case 2 -> new RespClient.Err("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: '"
                            + i + "' ");
                    default -> "e" + i;
                };
                assertEquals(expected, reply, "reply " + i);
            }
        }
    }
}
