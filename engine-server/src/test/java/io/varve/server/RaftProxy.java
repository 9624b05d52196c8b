package io.varve.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
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
 * <p>{@link #dropAll} cuts every connection and refuses all traffic: nobody reaches the member.
 * {@link #dropFrom} cuts every connection and then drops any connection whose requests name the given
 * member as the sender: every Raft request carries its sender's id ({@code host:port}) in clear, and all
 * members connect from 127.0.0.1, so that id is what tells the isolated member's connections apart.
 * {@link #heal} lets everything through again.
 */
final class RaftProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean dropAll;
    private volatile byte[] dropSender;

    private RaftProxy(ServerSocket listener, int target) {
        this.listener = listener;
        this.target = target;
    }

    static RaftProxy start(int target) throws IOException {
        RaftProxy proxy = new RaftProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
        Thread.ofVirtual().name("raft-proxy-" + proxy.port()).start(proxy::accept);
        return proxy;
    }

    int port() {
        return listener.getLocalPort();
    }

    void dropAll() {
        dropAll = true;
        cutAll();
    }

    void dropFrom(String senderAddress) {
        dropSender = senderAddress.getBytes(StandardCharsets.US_ASCII);
        cutAll();
    }

    void heal() {
        dropAll = false;
        dropSender = null;
    }

    private void cutAll() {
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (dropAll) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(server);
                Thread.ofVirtual().start(() -> pump(client, server, true));
                Thread.ofVirtual().start(() -> pump(server, client, false));
            } catch (IOException e) {
                // the listener closed, or the member is down: the peer sees a refused or reset connection
            }
        }
    }

    private void pump(Socket from, Socket to, boolean request) {
        byte[] buffer = new byte[64 * 1024];
        byte[] tail = new byte[0];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (dropAll) {
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

    /** Whether {@code needle} occurs in {@code haystack} and is not followed by another digit (a longer port). */
    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            int after = i + needle.length;
            if (after == haystack.length || haystack[after] < '0' || haystack[after] > '9') {
                return true;
            }
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
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // already closed
        }
        cutAll();
    }
}
