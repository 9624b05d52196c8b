package io.varve.server;

import io.varve.base.LoopbackPorts;
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
 * A TCP proxy in front of one member's Raft port that can drop traffic, to partition a cluster in one JVM.
 * Peers reach the member only through it (the member's Raft address is the proxy's).
 *
 * <p>{@link #dropAll} cuts every connection and stops listening: nobody reaches the member.
 * {@link #dropFrom} cuts every connection and then drops any connection whose requests name the given
 * member as the sender: all members connect from 127.0.0.1, but every jraft request (vote, append, read
 * index, snapshot install) carries its sender's id as protobuf field 2, a string: the bytes 0x12, its
 * length, then {@code host:port}. Matching that whole pattern, not just the address, keeps a new leader's
 * configuration entry (which lists the isolated member among the peers) from being taken for its traffic.
 * {@link #heal} lets everything through again.
 */
final class RaftProxy implements AutoCloseable {

    private final int port;
    private final int target;
    /** Null while {@link #dropAll} refuses connections (a refused connection is what bolt recovers from). */
    private volatile ServerSocket listener;
    private volatile boolean closed;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean droppingAll;
    private volatile byte[] dropSender;

    private RaftProxy(ServerSocket listener, int target) {
        this.listener = listener;
        this.port = listener.getLocalPort();
        this.target = target;
    }

    static RaftProxy start(int target) throws IOException {
        // Below the ephemeral range: heal() binds the port again after dropAll() let it go, and meanwhile the
        // members' reconnecting sockets must not be able to take it as their local end.
        ServerSocket listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackPorts.next()), 50);
        RaftProxy proxy = new RaftProxy(listener, target);
        proxy.listen(proxy.listener);
        return proxy;
    }

    private void listen(ServerSocket socket) {
        Thread.ofVirtual().name("raft-proxy-" + port).start(() -> accept(socket));
    }

    int port() {
        return port;
    }

    /** Stops listening (connections are refused) and cuts every connection. */
    synchronized void dropAll() throws IOException {
        droppingAll = true;
        ServerSocket s = listener;
        listener = null;
        if (s != null) {
            s.close();
        }
        cutAll();
    }

    void dropFrom(String senderAddress) {
        byte[] address = senderAddress.getBytes(StandardCharsets.US_ASCII);
        byte[] field = new byte[address.length + 2];
        field[0] = 0x12; // field 2, length-delimited
        field[1] = (byte) address.length; // under 128 bytes: a one-byte varint
        System.arraycopy(address, 0, field, 2, address.length);
        dropSender = field;
        cutAll();
    }

    synchronized void heal() throws IOException {
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
                closeQuietly(client); // the member is down: the peer sees its connection reset
            }
        }
    }

    private void pump(Socket from, Socket to, boolean request) {
        byte[] buffer = new byte[64 * 1024];
        byte[] tail = new byte[0];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (droppingAll) {
                    break;
                }
                byte[] sender = dropSender;
                if (request && sender != null) {
                    byte[] seen = concat(tail, buffer, n);
                    if (contains(seen, sender)) {
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

    private static byte[] concat(byte[] a, byte[] b, int bLength) {
        byte[] all = Arrays.copyOf(a, a.length + bLength);
        System.arraycopy(b, 0, all, a.length, bLength);
        return all;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
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
        ServerSocket s = listener;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        cutAll();
    }
}
