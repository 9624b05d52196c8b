package io.varve.server.cluster;

import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The links that carry published messages to the other nodes, against a fake peer: what goes on the wire,
 * in which order, and what is dropped when the peer cannot be reached.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerLinksTest {

    @Test
    void messagesReachThePeerInOrderAsDeliverCommandsAfterAuth() throws Exception {
        try (ServerSocket peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             PeerLinks links = new PeerLinks(topologyWithPeerAt(peer.getLocalPort()))) {
            links.publish(false, bytes("news"), bytes("first"), "secret");
            links.publish(false, bytes("news"), bytes("second"), "secret");
            links.publish(true, bytes("orders"), bytes("o-1"), "secret");
            try (Socket link = peer.accept()) {
                DataInputStream in = new DataInputStream(new BufferedInputStream(link.getInputStream()));
                OutputStream out = link.getOutputStream();
                assertEquals(List.of("AUTH", "secret"), command(in));
                out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertEquals(List.of("VARVE", "DELIVER", "news", "first"), command(in));
                assertEquals(List.of("VARVE", "DELIVER", "news", "second"), command(in));
                assertEquals(List.of("VARVE", "SDELIVER", "orders", "o-1"), command(in));
            }
            assertEquals(0, links.dropped());
        }
    }

    @Test
    void aMessageForAPeerThatIsDownIsDroppedAndCounted() throws Exception {
        int closedPort = LoopbackPorts.next(); // free, and no sibling fork's listener will take it
        try (PeerLinks links = new PeerLinks(topologyWithPeerAt(closedPort))) {
            links.publish(false, bytes("news"), bytes("lost"), null);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // detects a hang only
            while (links.dropped() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1, links.dropped());
        }
    }

    private static ClusterTopology topologyWithPeerAt(int port) {
        return new ClusterTopology(List.of(
                new ClusterTopology.Node("127.0.0.1:1", "127.0.0.1", 1, "self", true),
                new ClusterTopology.Node("127.0.0.1:2", "127.0.0.1", port, "peer", false)),
                SlotMap.evenly(1, 1), List.of("127.0.0.1:1"),
                List.of(List.of("127.0.0.1:1", "127.0.0.1:2")));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** One RESP array of bulk strings. */
    private static List<String> command(DataInputStream in) throws IOException {
        String header = line(in);
        assertTrue(header.startsWith("*"), header);
        List<String> args = new ArrayList<>();
        for (int i = Integer.parseInt(header.substring(1)); i > 0; i--) {
            String size = line(in);
            assertTrue(size.startsWith("$"), size);
            byte[] value = new byte[Integer.parseInt(size.substring(1))];
            in.readFully(value);
            assertEquals("", line(in));
            args.add(new String(value, StandardCharsets.UTF_8));
        }
        return args;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("closed");
            }
            if (b != '\r') {
                s.append((char) b);
            }
        }
        return s.toString();
    }
}
