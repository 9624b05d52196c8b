package io.varve.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of one Raft member's port, so a test or a fault campaign can cut the member off from
 * its peers and let it back. The member listens on its own port while its peers reach it through this proxy
 * (the member's Raft address is the proxy's), so every Raft connection between two members passes through
 * the proxy of the member it goes to. Client (RESP) traffic does not pass through it. engine-server's cluster
 * tests put members of one JVM behind it, the stress module's cluster campaign node processes.
 *
 * <p>Isolating member X takes two rules, because X's traffic runs over connections in both directions: X's
 * own proxy {@link #dropAll drops everything} (cuts its connections and stops listening, so the peers'
 * connects are refused, which is what bolt recovers from once {@link #heal} listens again), and the other
 * members' proxies {@link #dropFrom drop X's connections to them}. All members connect from 127.0.0.1, and
 * bolt gives no way to bind a member's outgoing side to its own loopback address, so a connection is
 * recognised by what it carries: every jraft request (vote, append, read index, snapshot install) names its
 * sender as protobuf field 2, a string: the byte 0x12, its length, then {@code host:port} (the sender's Raft
 * address). The whole pattern, not just the address, keeps a configuration entry that lists X among the
 * peers from being taken for X's traffic. A connection whose requests carry it is cut, and so is each new one
 * as soon as its first request arrives; the bytes before it (bolt's handshake) reach nobody who acts on them.
 *
 * <p>{@link #heal} binds the proxy's port again after {@link #dropAll} let it go, so the caller hands
 * {@link #start} a listener on a port below the kernel's ephemeral range: meanwhile the members' reconnecting
 * sockets, which take their local ends from that range, cannot take the port.
 *
 * <p>Each accepted connection runs on two virtual threads, one per direction. The rules are volatile fields
 * each pump reads before forwarding a read's bytes, so a rule set while a read was in flight still stops
 * that read's bytes; cutting every open socket ends the reads already blocked.
 */
public final class RaftProxy implements AutoCloseable {

    private final int port;
    private final int target;
    /** Null while {@link #dropAll} refuses connections. */
    private ServerSocket listener;
    private Thread acceptor;
    private boolean closed;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean droppingAll;
    private volatile byte[] dropSender;

    private RaftProxy(ServerSocket listener, int target) {
        this.listener = listener;
        this.port = listener.getLocalPort();
        this.target = target;
    }

    /**
     * A proxy that accepts on {@code listener} (bound to a loopback port below the ephemeral range; the proxy
     * owns it from now) and forwards to {@code targetPort} on loopback.
     */
    public static RaftProxy start(ServerSocket listener, int targetPort) {
        RaftProxy proxy = new RaftProxy(listener, targetPort);
        proxy.listen(listener);
        return proxy;
    }

    /** The port the peers connect to: the member's Raft address names it. */
    public int port() {
        return port;
    }

    /** Stops listening (connections are refused once this returns) and cuts every connection. */
    public synchronized void dropAll() throws IOException, InterruptedException {
        droppingAll = true;
        if (listener != null) {
            listener.close();
            listener = null;
            // A socket closed while a thread is blocked in accept() is released only when that thread leaves
            // it: until then the kernel may still complete connections into its backlog.
            acceptor.join();
        }
        cutAll();
    }

    /** Cuts every connection, then any connection whose requests name {@code senderAddress} as the sender. */
    public void dropFrom(String senderAddress) {
        dropSender = senderPattern(senderAddress);
        cutAll();
    }

    /** Lets everything through again. */
    public synchronized void heal() throws IOException {
        droppingAll = false;
        dropSender = null;
        if (listener == null && !closed) {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
            listener = s;
            listen(s);
        }
    }

    /** How a jraft request names its sender: field 2, length-delimited, the address under 128 bytes. */
    static byte[] senderPattern(String senderAddress) {
        byte[] address = senderAddress.getBytes(StandardCharsets.US_ASCII);
        byte[] field = new byte[address.length + 2];
        field[0] = 0x12;
        field[1] = (byte) address.length;
        System.arraycopy(address, 0, field, 2, address.length);
        return field;
    }

    private void listen(ServerSocket socket) {
        acceptor = Thread.ofVirtual().name("raft-proxy-" + port).start(() -> accept(socket));
    }

    private void cutAll() {
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private void accept(ServerSocket socket) {
        while (!socket.isClosed()) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException e) {
                continue; // closed: the loop ends
            }
            try {
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(server);
                Thread.ofVirtual().start(() -> pump(client, server, true));
                Thread.ofVirtual().start(() -> pump(server, client, false));
            } catch (IOException e) {
                closeQuietly(client); // the node is down: the peer sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to, boolean request) {
        byte[] buffer = new byte[64 * 1024];
        byte[] tail = new byte[0];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0 && !droppingAll) {
                byte[] sender = dropSender;
                if (request && sender != null) {
                    // The pattern may straddle two reads: keep the last read's tail in front of this one.
                    byte[] seen = Arrays.copyOf(tail, tail.length + n);
                    System.arraycopy(buffer, 0, seen, tail.length, n);
                    if (indexOf(seen, sender) >= 0) {
                        break;
                    }
                    tail = Arrays.copyOfRange(seen, Math.max(0, seen.length - sender.length), seen.length);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // cut, or the other side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        droppingAll = true;
        if (listener != null) {
            try {
                listener.close();
            } catch (IOException ignored) {
                // already closed
            }
            listener = null;
        }
        cutAll();
    }
}
