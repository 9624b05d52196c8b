package io.varve.stress.cluster;

import io.varve.testsupport.RaftProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback listeners on ports below the kernel's ephemeral range, for ports the cluster campaign binds again
 * after letting them go: a proxy that {@link RaftProxy#heal heals}, a node restarted after SIGKILL on the
 * ports its peers know. While such a port is unbound, any outgoing connection on the machine (the campaign's
 * own reconnecting clients and Raft links, or another test JVM's thousands of connections) may take a port
 * of the ephemeral range as its local end; below the range none does. The port is drawn at random, so that
 * two JVMs rarely try the same one, and taken only if it binds.
 */
final class BelowEphemeralPorts {

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST_PORT = 10_000;
    private static final int ATTEMPTS = 1_000;

    private BelowEphemeralPorts() {
    }

    /** A listener on a free loopback port below the ephemeral range (the kernel's choice where that is unknown). */
    static ServerSocket bind() throws IOException {
        int ceiling = ephemeralLow();
        for (int attempt = 0; ceiling - LOWEST_PORT >= 1_000 && attempt < ATTEMPTS; attempt++) {
            ServerSocket s = new ServerSocket();
            try {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        ThreadLocalRandom.current().nextInt(LOWEST_PORT, ceiling)), 50);
                return s;
            } catch (IOException taken) {
                s.close();
            }
        }
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        return s;
    }

    /** Line by line: Files.readString of this /proc file returned only its first character on some kernels. */
    static int ephemeralLow() {
        try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE)) {
            return Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException unknownRange) {
            return 0; // not Linux
        }
    }
}
