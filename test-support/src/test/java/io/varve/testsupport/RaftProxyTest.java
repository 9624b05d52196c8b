package io.varve.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.varve.base.LoopbackPorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy that cluster tests and the cluster campaign partition members with, in front of an echo server: it forwards both ways;
 * {@code dropAll} cuts every connection and refuses new ones; {@code dropFrom} cuts the connections whose
 * requests name the sender, also when the name arrives split over two reads, and nothing else; {@code heal}
 * lets everything through again. Socket timeouts only detect a hang.
 */
class RaftProxyTest {

    private static final int HANG_MILLIS = 30_000;
    private static final String ISOLATED = "127.0.0.1:4242";

    private ServerSocket echo;
    private final Set<Socket> echoed = ConcurrentHashMap.newKeySet();
    private RaftProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    echoed.add(s);
                    Thread.ofVirtual().start(() -> echoBack(s));
                } catch (IOException closed) {
                    // the loop ends
                }
            }
        });
        ServerSocket listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackPorts.next()), 50);
        proxy = RaftProxy.start(listener, echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
        for (Socket s : echoed) {
            s.close();
        }
    }

    private static void echoBack(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException cut) {
            // the proxy cut it
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(HANG_MILLIS);
        return s;
    }

    /** Sends {@code bytes} and reads their echo. */
    private static void roundTrip(Socket s, byte[] bytes) throws IOException {
        s.getOutputStream().write(bytes);
        s.getOutputStream().flush();
        assertArrayEquals(bytes, s.getInputStream().readNBytes(bytes.length));
    }

    /** Whatever the connection still yields until it ends (a reset counts as its end). */
    private static byte[] untilCut(Socket s) {
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        byte[] buffer = new byte[1024];
        try {
            int n;
            while ((n = s.getInputStream().read(buffer)) >= 0) {
                rest.write(buffer, 0, n);
            }
        } catch (java.net.SocketTimeoutException hang) {
            throw new AssertionError("the connection was not cut", hang);
        } catch (IOException reset) {
            // cut
        }
        return rest.toByteArray();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] request(String sender) {
        byte[] pattern = RaftProxy.senderPattern(sender);
        byte[] request = new byte[pattern.length + 4];
        request[0] = 0x0a; // field 1 before it, as a group id would be
        request[1] = 1;
        request[2] = 'g';
        System.arraycopy(pattern, 0, request, 3, pattern.length);
        request[request.length - 1] = 0x18;
        return request;
    }

    @Test
    void dropAllCutsEveryConnectionAndRefusesNewOnesUntilHealed() throws Exception {
        try (Socket before = connect()) {
            roundTrip(before, bytes("ping"));
            proxy.dropAll();
            assertEquals(0, untilCut(before).length);
        }
        assertThrows(ConnectException.class, () -> new Socket(InetAddress.getLoopbackAddress(), proxy.port()).close());
        proxy.heal();
        try (Socket after = connect()) {
            roundTrip(after, request(ISOLATED));
        }
    }

    @Test
    void dropFromCutsOnlyConnectionsWhoseRequestsNameTheSender() throws IOException {
        try (Socket before = connect()) {
            roundTrip(before, bytes("ping"));
            proxy.dropFrom(ISOLATED);
            untilCut(before); // every connection is cut once: the sender's may be among them
        }
        try (Socket isolated = connect(); Socket other = connect()) {
            roundTrip(other, request("127.0.0.1:4243"));
            roundTrip(other, bytes("peers 127.0.0.1:4242,127.0.0.1:4243")); // named, not as a sender
            isolated.getOutputStream().write(request(ISOLATED));
            isolated.getOutputStream().flush();
            byte[] leaked = untilCut(isolated);
            assertEquals(-1, RaftProxy.indexOf(leaked, RaftProxy.senderPattern(ISOLATED)));
            roundTrip(other, request("127.0.0.1:4243"));
        }
    }

    @Test
    void aSenderNameSplitOverTwoReadsIsStillRecognised() throws IOException {
        proxy.dropFrom(ISOLATED);
        byte[] request = request(ISOLATED);
        int half = request.length / 2;
        try (Socket isolated = connect()) {
            byte[] first = java.util.Arrays.copyOf(request, half);
            roundTrip(isolated, first); // echoed: the proxy forwarded this read before the rest was sent
            isolated.getOutputStream().write(request, half, request.length - half);
            isolated.getOutputStream().flush();
            assertEquals(0, untilCut(isolated).length);
        }
        proxy.heal();
        try (Socket healed = connect()) {
            roundTrip(healed, request);
        }
    }

    @Test
    void theSenderPatternIsTheProtobufStringFieldTwo() {
        byte[] pattern = RaftProxy.senderPattern("127.0.0.1:4242");
        assertEquals(0x12, pattern[0]);
        assertEquals(14, pattern[1]);
        assertFalse(RaftProxy.indexOf(bytes("127.0.0.1:4242"), pattern) >= 0);
    }
}
