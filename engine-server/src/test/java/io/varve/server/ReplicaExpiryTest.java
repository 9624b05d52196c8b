package io.varve.server;

import io.varve.core.compaction.CompactionFilter;
import io.varve.server.store.KeyEncoding;
import io.varve.server.store.KeyspaceCompactionFilter;
import io.varve.server.store.Metadata;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica's compaction removes nothing by deadline, however long past: only the leader's replicated deletes
 * remove expired keys, so a member whose log still holds a PERSIST of the key keeps what that PERSIST revives.
 */
class ReplicaExpiryTest {

    private static final long NOW = 1_700_000_000_000L;

    @Test
    void aReplicasCompactionNeverDropsAKeyByItsDeadline() {
        ServerConfig replicated = ServerConfig.defaultConfig().with(Map.of(
                "raft-address", "10.0.0.1:7100", "raft-peers", "10.0.0.1:7100/10.0.0.1:6379"));
        KeyspaceCompactionFilter filter = new KeyspaceCompactionFilter(
                ServerStorage.compactionClock(replicated, () -> NOW));
        byte[] key = KeyEncoding.metadataKey(0, "k".getBytes(StandardCharsets.UTF_8));
        byte[] expiredAnHourAgo = Metadata.string("v".getBytes(StandardCharsets.UTF_8), NOW - 3_600_000).encode();
        assertEquals(CompactionFilter.KEEP, filter.filter(1, key, expiredAnHourAgo));

        KeyspaceCompactionFilter standalone = new KeyspaceCompactionFilter(
                ServerStorage.compactionClock(ServerConfig.defaultConfig(), () -> NOW));
        assertEquals(CompactionFilter.REMOVE, standalone.filter(1, key, expiredAnHourAgo), "standalone drops it");
    }
}
