package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking commands beside MULTI/EXEC/WATCH, as Redis has them: clients blocked on keys a transaction fills
 * are served after its last command. A test acts on a blocked client only once the registry shows it
 * waiting; futures are read with a bound only to detect hangs.
 */
class BlockingTransactionsTest extends OneServerPerClass {

    private void awaitWaiting(String key, int count) throws InterruptedException {
        assertTrue(server.server.keyspaceForInfo().blocking()
                .awaitWaiting(key.getBytes(StandardCharsets.UTF_8), count, 10_000), count + " waiting on " + key);
    }

    private static <T> T get(RedisFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void execServesBlockedClientsAfterItsLastCommand() throws Exception {
        try (Lettuce blocked = connect(ProtocolVersion.RESP2); Lettuce tx = connect(ProtocolVersion.RESP2)) {
            RedisFuture<KeyValue<String, String>> pop = blocked.async().blpop(0, "l");
            awaitWaiting("l", 1);
            RedisCommands<String, String> r = tx.sync();
            r.multi();
            r.lpush("l", "x");
            r.llen("l");
            TransactionResult result = r.exec();
            assertEquals(List.of(1L, 1L), List.of(result.get(0), result.get(1)), "nobody popped inside EXEC");
            assertEquals(KeyValue.just("l", "x"), get(pop));
            assertEquals(0, r.llen("l"));
        }
    }
}
