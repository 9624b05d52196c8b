package io.varve.base;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LoopbackPortsTest {

    /** Ports from the ephemeral range could be taken by any outgoing connection before their listener binds. */
    @Test
    void portsComeFromBelowTheEphemeralRange() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(range), "Linux only");
        int ephemeralLow;
        try (BufferedReader in = Files.newBufferedReader(range)) {
            ephemeralLow = Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
        }
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.next();
            assertTrue(port < ephemeralLow, port + " is in the ephemeral range, from " + ephemeralLow);
        }
    }
}
