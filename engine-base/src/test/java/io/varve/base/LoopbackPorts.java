package io.varve.base;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for tests that must name a listening address before the listener exists: Raft members that know
 * each other's addresses up front, a server process started with {@code --port}.
 *
 * <p>Asking the kernel for port 0 and closing the probe is not enough there. That port comes from the
 * ephemeral range, which the kernel also draws from for every outgoing connection; members already running
 * connect to each other and to not-yet-started peers over and over, and one of those connections can sit on
 * the port a later member was told to listen on, so that member fails to bind. This class hands out ports
 * below the ephemeral range, where no outgoing connection lands, chosen at random so that two test JVMs on
 * one machine rarely pick the same one, never the same one twice within a JVM, and each checked free by
 * binding it. Where the range is unknown (not Linux) it falls back to the kernel's choice.
 */
public final class LoopbackPorts {

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int ATTEMPTS = 1_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    /** The low end of the kernel's ephemeral range; it does not change while tests run. */
    private static final int EPHEMERAL_LOW = ephemeralLow();

    private LoopbackPorts() {
    }

    /** A loopback port that is free now and that no other caller in this JVM has been given. */
    public static int next() {
        int ceiling = EPHEMERAL_LOW;
        if (ceiling - LOWEST < 1_000) {
            return kernelChoice();
        }
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, ceiling);
            if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port below " + ceiling + " after " + ATTEMPTS + " tries");
    }

    /**
     * Read line by line: {@code Files.readString} trusts the size a {@code /proc} file reports, and on some
     * kernels got the first character only, which sent every caller to the kernel's choice.
     */
    private static int ephemeralLow() {
        try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE)) {
            String[] range = in.readLine().trim().split("\\s+");
            return Integer.parseInt(range[0]);
        } catch (IOException | RuntimeException unknown) {
            return 0;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private static int kernelChoice() {
        for (int i = 0; i < ATTEMPTS; i++) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(probe.getLocalPort())) {
                    return probe.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("the kernel offered only ports already handed out, " + ATTEMPTS + " times");
    }
}
