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

    /** Forks alive at once have different numbers, so they draw from disjoint shares that cover the range. */
    @Test
    void forksWithDifferentNumbersDrawFromDisjointSharesThatCoverTheRange() {
        int low = 10_000;
        for (int fork = 1; fork <= 4; fork++) {
            LoopbackPorts.Share share = LoopbackPorts.share(32_768, Integer.toString(fork), "4");
            assertEquals(new LoopbackPorts.Share(low, low + 5_692), share, "fork " + fork);
            low = share.high();
        }
        assertEquals(32_768, low);
    }

    @Test
    void aForkNumberAboveTheSharesWrapsAround() {
        assertEquals(LoopbackPorts.share(32_768, "1", "4"), LoopbackPorts.share(32_768, "5", "4"));
        assertEquals(LoopbackPorts.share(32_768, "3", "4"), LoopbackPorts.share(32_768, "7", "4"));
    }

    @Test
    void aJvmOutsideSurefireOrWithNonsenseDrawsFromTheWholeRange() {
        LoopbackPorts.Share whole = new LoopbackPorts.Share(10_000, 32_768);
        assertEquals(whole, LoopbackPorts.share(32_768, null, null));
        assertEquals(whole, LoopbackPorts.share(32_768, "", "4"));
        assertEquals(whole, LoopbackPorts.share(32_768, "${surefire.forkNumber}", "4"));
        assertEquals(whole, LoopbackPorts.share(32_768, "0", "4"));
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
        String shares = System.getProperty(LoopbackPorts.SHARES);
        assertTrue(fork != null && shares != null, "surefire did not pass the fork number and the shares");
        assertTrue(Integer.parseInt(fork) >= 1, "fork " + fork); // fails on an empty or unreplaced placeholder
        assertTrue(Integer.parseInt(shares) > 1, shares + " shares");
        LoopbackPorts.Share share = LoopbackPorts.share(ephemeralLow, fork, shares);
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.next();
            assertTrue(port >= share.low() && port < share.high(), port + " is outside fork " + fork + "'s " + share);
        }
    }
}
