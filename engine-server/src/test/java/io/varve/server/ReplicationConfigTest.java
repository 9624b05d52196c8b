package io.varve.server;

import io.varve.server.replica.ReplicationSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The replicated mode's parameters, from a config file and flags, and the mistakes they are checked for. */
class ReplicationConfigTest {

    private static final String PEERS = "10.0.0.1:7100/10.0.0.1:6379,10.0.0.2:7100/10.0.0.2:6379,"
            + "10.0.0.3:7100/10.0.0.3:6380";

    @Test
    void standaloneWithoutRaftAddress() {
        assertFalse(ServerConfig.defaultConfig().replication().isPresent());
    }

    @Test
    void fromAConfigFileAndFlags(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("varve.conf");
        Files.writeString(file, "raft-address 10.0.0.2:7100\nraft-peers " + PEERS + "\nraft-read-mode lease\n");
        ServerConfig c = ServerConfig.fromArgs(new String[] {file.toString(), "--raft-snapshot-interval", "30"});
        ReplicationSettings r = c.replication().orElseThrow();
        assertEquals("10.0.0.2:7100", r.raftAddress());
        assertEquals(List.of("10.0.0.1:7100", "10.0.0.2:7100", "10.0.0.3:7100"), r.raftPeers().stream().sorted().toList());
        assertEquals(Optional.of("10.0.0.3:6380"), r.clientAddressOf("10.0.0.3:7100"));
        assertTrue(r.leaseReads());
        assertEquals(30, r.snapshotIntervalSecs());
        assertEquals(1000, r.electionTimeoutMs());
    }

    @Test
    void mistakesAreNamed() {
        ServerConfig base = ServerConfig.defaultConfig();
        assertThrows(IllegalArgumentException.class,
                () -> base.with(Map.of("raft-address", "10.0.0.9:7100", "raft-peers", PEERS)),
                "this member must be a peer");
        assertThrows(IllegalArgumentException.class, () -> base.with(Map.of(
                "raft-address", "10.0.0.1:7100", "raft-peers", "10.0.0.1:7100,10.0.0.2:7100")),
                "a peer without its client address");
        assertThrows(IllegalArgumentException.class, () -> base.with("raft-peers", PEERS),
                "peers without raft-address");
        assertThrows(IllegalArgumentException.class, () -> base.with(Map.of(
                "raft-address", "10.0.0.1:7100", "raft-peers", PEERS, "raft-read-mode", "sometimes")));
        assertThrows(IllegalArgumentException.class, () -> base.with(Map.of(
                "raft-address", "10.0.0.1:99999", "raft-peers", PEERS)));
    }
}
