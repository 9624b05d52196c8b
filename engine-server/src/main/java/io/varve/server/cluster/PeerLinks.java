package io.varve.server.cluster;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * This node's links to the other nodes' client ports, which carry published messages across the cluster:
 * a message PUBLISHed here is sent to every other node as {@code VARVE DELIVER channel message} (an SPUBLISH
 * as {@code VARVE SDELIVER}), which delivers it to that node's own subscribers only (docs/cluster.md,
 * "Pub/sub"). The Raft log is not used: a message is not state, would cost an fsync, and replaying a log after
 * a restart would deliver old messages again.
 *
 * <p>Delivery is at most once, in publishing order per link. Each link has a bounded queue and one virtual
 * thread that connects when there is something to send (authenticating with the password the publisher
 * gave, so nodes must share {@code requirepass}), writes whatever is queued, and discards the replies. A
 * message that finds its queue full, or is in hand when the connection fails, is dropped and counted; after a
 * failure the link drops what is queued (a peer that was down gets no stale burst) and connects again with the
 * next message. So PUBLISH never waits for another node.
 *
 * <p>The links follow the topology ({@link #follow}): a node met later gets a link, a forgotten one loses
 * its link.
 *
 * <p>Thread-safe: publishers only offer to the queues of the link map they read (replaced whole when the
 * nodes change); each link's connection is touched by its own thread.
 */
final class PeerLinks implements AutoCloseable {

    static final int QUEUE_CAPACITY = 10_000;
    private static final int CONNECT_TIMEOUT_MS = 2_000;
    private static final System.Logger LOG = System.getLogger(PeerLinks.class.getName());

    /** The link to each other node, by its client address. */
    private volatile Map<String, Link> links = Map.of();
    private boolean closed;
    private final LongAdder dropped = new LongAdder();

    PeerLinks(ClusterTopology topology) {
        follow(topology);
    }

    /** Links to the other nodes of {@code topology}: new ones opened (lazily), those of nodes gone closed. */
    synchronized void follow(ClusterTopology topology) {
        if (closed) {
            return;
        }
        Map<String, Link> next = new HashMap<>();
        for (ClusterTopology.Node node : topology.nodes()) {
            if (!node.self()) {
                String address = node.clientHost() + ":" + node.clientPort();
                Link link = links.get(address);
                next.put(address, link != null ? link : new Link(node.clientHost(), node.clientPort()));
            }
        }
        links.forEach((address, link) -> {
            if (!next.containsKey(address)) {
                link.close();
            }
        });
        links = Map.copyOf(next);
    }

    /** Queues the message for every other node; returns at once. */
    void publish(boolean sharded, byte[] channel, byte[] message, String password) {
        byte[] command = command(sharded ? "SDELIVER" : "DELIVER", channel, message);
        for (Link link : links.values()) {
            link.offer(command, password);
        }
    }

    /** Messages dropped so far: a full queue or a failed connection. */
    long dropped() {
        return dropped.sum();
    }

    @Override
    public synchronized void close() {
        closed = true;
        links.values().forEach(Link::close);
    }

    private static byte[] command(String sub, byte[] channel, byte[] message) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(channel.length + message.length + 48);
        out.writeBytes("*4\r\n".getBytes(StandardCharsets.US_ASCII));
        bulk(out, "VARVE".getBytes(StandardCharsets.US_ASCII));
        bulk(out, sub.getBytes(StandardCharsets.US_ASCII));
        bulk(out, channel);
        bulk(out, message);
        return out.toByteArray();
    }

    private static void bulk(java.io.ByteArrayOutputStream out, byte[] value) {
        out.writeBytes(("$" + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(value);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** One peer: a queue and the thread that drains it into a connection. */
    private final class Link {

        private final String host;
        private final int port;
        private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
        private volatile String password;
        private volatile boolean closed;
        private Thread sender;
        private Socket socket;
        private OutputStream sendersOutput;

        Link(String host, int port) {
            this.host = host;
            this.port = port;
        }

        void offer(byte[] command, String password) {
            this.password = password;
            if (!queue.offer(command)) {
                dropped.increment();
            }
            startOnce();
        }

        private synchronized void startOnce() {
            if (sender == null && !closed) {
                sender = Thread.ofVirtual().name("varve-peer-link-" + host + ":" + port).start(this::run);
            }
        }

        private void run() {
            List<byte[]> batch = new ArrayList<>();
            while (!closed) {
                try {
                    batch.add(queue.take());
                } catch (InterruptedException e) {
                    return;
                }
                queue.drainTo(batch);
                try {
                    OutputStream out = connected();
                    for (byte[] command : batch) {
                        out.write(command);
                    }
                    out.flush();
                } catch (IOException e) {
                    dropped.add(batch.size() + queue.size());
                    queue.clear();
                    disconnect();
                    if (!closed) {
                        LOG.log(System.Logger.Level.DEBUG, "pub/sub link to " + host + ":" + port + " failed", e);
                    }
                }
                batch.clear();
            }
            disconnect();
        }

        private OutputStream connected() throws IOException {
            if (socket == null) {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
                    s.setTcpNoDelay(true);
                    OutputStream out = new BufferedOutputStream(s.getOutputStream());
                    String pass = password;
                    if (pass != null && !pass.isEmpty()) {
                        out.write(command("AUTH", pass));
                        out.flush();
                        String reply = line(s.getInputStream());
                        if (!reply.startsWith("+")) {
                            throw new IOException("AUTH at " + host + ":" + port + " answered " + reply);
                        }
                    }
                    InputStream in = s.getInputStream();
                    Thread.ofVirtual().name("varve-peer-link-replies-" + host + ":" + port).start(() -> {
                        try {
                            in.transferTo(OutputStream.nullOutputStream()); // replies: counts nobody needs
                        } catch (IOException ignored) {
                            // the sender notices a broken connection when it writes next
                        }
                    });
                    socket = s;
                    sendersOutput = out;
                } catch (IOException e) {
                    s.close();
                    throw e;
                }
            }
            return sendersOutput;
        }

        private void disconnect() {
            Socket s = socket;
            socket = null;
            sendersOutput = null;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a broken connection
                }
            }
        }

        void close() {
            Thread t;
            synchronized (this) {
                closed = true;
                t = sender;
            }
            if (t != null) {
                t.interrupt();
                try {
                    t.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static byte[] command(String name, String argument) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes("*2\r\n".getBytes(StandardCharsets.US_ASCII));
        bulk(out, name.getBytes(StandardCharsets.US_ASCII));
        bulk(out, argument.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** One reply line, without its CRLF. */
    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed");
            }
            if (b != '\r') {
                s.append((char) b);
            }
        }
        return s.toString();
    }
}
