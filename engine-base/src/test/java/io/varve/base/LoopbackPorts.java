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
 *
 * <p>Test JVMs run side by side: two surefire forks of a module, and the forks of two modules Maven builds
 * at once. Surefire numbers the forks of one Maven run from 1, a number being reused only once its fork has
 * ended, so forks alive at the same time have different numbers, never above how many run at once. Each fork
 * is told its number and the number of shares (system properties {@value #FORK} and {@value #SHARES}, set
 * in the root pom) and draws only from its own share of the range, so concurrent forks never hand out the
 * same port, whatever their timing: one fork's bind probe cannot race another's listener. A number above the
 * shares wraps around (more forks at once than the pom planned for share ports again, as JVMs of other Maven
 * runs on the machine always do, relying on the random choice and the bind check).
 */
public final class LoopbackPorts {

    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int ATTEMPTS = 1_000;
    /** This JVM's surefire fork number, from 1; absent outside surefire. */
    static final String FORK = "varve.test.fork";
    /** Into how many shares the range is cut: at least the most forks that run at once; absent outside surefire. */
    static final String SHARES = "varve.test.portShares";
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    /** The low end of the kernel's ephemeral range; it does not change while tests run. */
    private static final int EPHEMERAL_LOW = ephemeralLow();

    private LoopbackPorts() {
    }

    /** A loopback port that is free now and that no other caller in this JVM has been given. */
    public static int next() {
        if (EPHEMERAL_LOW - LOWEST < 1_000) {
            return kernelChoice();
        }
        Share share = share(EPHEMERAL_LOW, System.getProperty(FORK), System.getProperty(SHARES));
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = ThreadLocalRandom.current().nextInt(share.low(), share.high());
            if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port in " + share + " after " + ATTEMPTS + " tries");
    }

    /** Ports {@code low} (inclusive) to {@code high} (exclusive). */
    record Share(int low, int high) {
    }

    /**
     * Fork {@code fork}'s share of the ports from {@link #LOWEST} to {@code ceiling}, cut into {@code shares}:
     * the whole range when either is missing or not a positive number (a JVM outside surefire).
     */
    static Share share(int ceiling, String fork, String shares) {
        int number;
        int count;
        try {
            number = Integer.parseInt(String.valueOf(fork).trim());
            count = Integer.parseInt(String.valueOf(shares).trim());
        } catch (NumberFormatException notInAFork) {
            return new Share(LOWEST, ceiling);
        }
        if (count < 1 || number < 1) {
            return new Share(LOWEST, ceiling);
        }
        int index = (number - 1) % count;
        int width = (ceiling - LOWEST) / count;
        return new Share(LOWEST + index * width, LOWEST + (index + 1) * width);
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
