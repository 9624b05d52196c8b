package io.varve.stress.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BelowEphemeralPortsTest {

    /** A node's ports must stay out of the range outgoing connections draw from while the node is down. */
    @Test
    void listenersSitBelowTheEphemeralRange() throws Exception {
        int ephemeralLow = BelowEphemeralPorts.ephemeralLow();
        assumeTrue(ephemeralLow > 11_000, "Linux with a known ephemeral range only");
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                ServerSocket s = BelowEphemeralPorts.bind();
                held.add(s);
                assertTrue(s.getLocalPort() >= 10_000 && s.getLocalPort() < ephemeralLow,
                        s.getLocalPort() + " is not below the ephemeral range, from " + ephemeralLow);
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }
}
