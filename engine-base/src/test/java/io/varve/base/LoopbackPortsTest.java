package io.varve.base;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    /** Sibling forks of one module draw from disjoint shares, so their probes and listeners never race. */
    @Test
    void siblingForksDrawFromDisjointSharesThatCoverTheRange() {
        LoopbackPorts.Share first = LoopbackPorts.share(32_768, "1", "2");
        LoopbackPorts.Share second = LoopbackPorts.share(32_768, "2", "2");
        assertEquals(new LoopbackPorts.Share(10_000, 21_384), first);
        assertEquals(new LoopbackPorts.Share(21_384, 32_768), second);
    }

    @Test
    void aJvmOutsideSurefireOrWithNonsenseDrawsFromTheWholeRange() {
        LoopbackPorts.Share whole = new LoopbackPorts.Share(10_000, 32_768);
        assertEquals(whole, LoopbackPorts.share(32_768, null, null));
        assertEquals(whole, LoopbackPorts.share(32_768, "${surefire.forkNumber}", "2"));
        assertEquals(whole, LoopbackPorts.share(32_768, "3", "2"));
        assertEquals(whole, LoopbackPorts.share(32_768, "1", "1"));
    }

    /** The root pom tells each fork its number; the ports this JVM hands out stay in that fork's share. */
    @Test
    void thisForksPortsStayInItsShare() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(range), "Linux only");
        int ephemeralLow;
        try (BufferedReader in = Files.newBufferedReader(range)) {
            ephemeralLow = Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
        }
        String fork = System.getProperty(LoopbackPorts.FORK);
        String forks = System.getProperty(LoopbackPorts.FORKS);
        assertTrue(fork != null && forks != null, "surefire did not pass the fork number and count");
        int number = Integer.parseInt(fork); // fails on an empty or unreplaced placeholder
        assertTrue(number >= 1 && number <= Integer.parseInt(forks), "fork " + fork + " of " + forks);
        LoopbackPorts.Share share = LoopbackPorts.share(ephemeralLow, fork, forks);
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.next();
            assertTrue(port >= share.low() && port < share.high(), port + " is outside fork " + fork + "'s " + share);
        }
    }
}
