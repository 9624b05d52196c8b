package io.varve.server;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Blocked clients whose very short timeouts race the pushes that serve them, and BLMOVEs that chain into
 * other waiters: every pushed element ends up exactly once, either with one client or still in a list.
 */
class BlockingRaceTest {

    private static final int BLOCKERS = 4;
    private static final int ELEMENTS = 200;

    @Test
    void noElementIsLostOrDeliveredTwice(@TempDir Path dir) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(BLOCKERS + 1);
        try (TestServer server = TestServer.start(dir); Lettuce pusher = Lettuce.connect(server.port(), ProtocolVersion.RESP2)) {
            AtomicBoolean pushed = new AtomicBoolean();
            List<Future<List<String>>> blockers = new ArrayList<>();
            for (int i = 0; i < BLOCKERS; i++) {
                boolean mover = i % 2 == 1;
                blockers.add(pool.submit(() -> {
                    List<String> got = new ArrayList<>();
                    try (Lettuce l = Lettuce.connect(server.port(), mover ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2)) {
                        RedisCommands<String, String> r = l.sync();
                        while (true) {
                            boolean last = pushed.get();
                            if (mover) {
                                // Moves into "m", where the other blockers also wait: a chained wake-up.
                                String e = r.blmove("src", "m", LMoveArgs.Builder.leftRight(), 0.01);
                                if (e == null && last) {
                                    return got;
                                }
                            } else {
                                KeyValue<String, String> kv = r.blpop(0.01, "m", "src");
                                if (kv == null && last) {
                                    return got;
                                }
                                if (kv != null) {
                                    got.add(kv.getValue());
                                }
                            }
                        }
                    }
                }));
            }
            List<String> all = new ArrayList<>();
            for (int i = 0; i < ELEMENTS; i++) {
                all.add("e" + i);
                pusher.sync().rpush("src", "e" + i);
            }
            pushed.set(true);
            List<String> delivered = new ArrayList<>();
            for (Future<List<String>> f : blockers) {
                delivered.addAll(f.get(60, TimeUnit.SECONDS));
            }
            delivered.addAll(pusher.sync().lrange("src", 0, -1));
            delivered.addAll(pusher.sync().lrange("m", 0, -1));
            assertEquals(delivered.size(), new HashSet<>(delivered).size(), "an element was delivered twice");
            Collections.sort(delivered);
            Collections.sort(all);
            assertEquals(all, delivered);
            assertEquals(0, server.server.keyspace().blocking().blockedCount());
        } finally {
            pool.shutdownNow();
        }
    }
}
