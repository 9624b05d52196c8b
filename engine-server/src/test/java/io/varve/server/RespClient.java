package io.varve.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal RESP2/RESP3 client over a plain socket, for checks a real client library would hide: exact error
 * texts, inline commands, malformed frames, and whether the server closed the connection. Every read has a
 * timeout so a broken server fails the test instead of hanging it.
 */
final class RespClient implements AutoCloseable {

    /** An error reply. */
    record Err(String text) {
    }

    /** RESP3 null. */
    static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "(null)";
        }
    };

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    RespClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
    }

    static RespClient connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return new RespClient(s);
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            b.writeBytes(bytes);
            b.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    void send(String... args) throws IOException {
        sendRaw(encode(args));
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void sendRaw(String text) throws IOException {
        sendRaw(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A numeric field of {@code INFO stats}, e.g. {@code total_net_input_bytes}; fails if the field is missing. */
    long infoStat(String field) throws IOException {
        String info = (String) call("INFO", "stats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1));
            }
        }
        throw new AssertionError("INFO stats has no " + field + ": " + info);
    }

    Object call(String... args) throws IOException {
        send(args);
        return read();
    }

    /**
     * Reads one reply: String (simple/bulk/verbatim), Long, Double, Boolean, List (arrays, sets and pushes),
     * Map, Err, null or NULL.
     */
    Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("server closed the connection");
        }
        String line = readLine();
        return switch (type) {
            case '+' -> line;
            case '-' -> new Err(line);
            case ':' -> Long.parseLong(line);
            case '$' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield null;
                }
                byte[] data = new byte[n];
                in.readFully(data);
                readLine();
                yield new String(data, StandardCharsets.UTF_8);
            }
            case '=' -> {
                byte[] data = new byte[Integer.parseInt(line)];
                in.readFully(data);
                readLine();
                yield new String(data, StandardCharsets.UTF_8).substring(4);
            }
            case '*', '~', '>' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    yield null;
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                yield items;
            }
            case '%' -> {
                int n = Integer.parseInt(line);
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    map.put(read(), read());
                }
                yield map;
            }
            case '_' -> NULL;
            case '#' -> line.equals("t");
            case ',' -> Double.parseDouble(line);
            default -> throw new IOException("unexpected reply type '" + (char) type + "' " + line);
        };
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("server closed the connection mid-reply");
            }
            if (c == '\r') {
                int lf = in.read();
                if (lf != '\n') {
                    throw new IOException("CR not followed by LF");
                }
                return b.toString(StandardCharsets.UTF_8);
            }
            b.write(c);
        }
    }

    /** Whether reply bytes have arrived and wait to be read (never blocks). */
    boolean replyWaiting() throws IOException {
        return in.available() > 0;
    }

    /** Whether the server closed the connection (reads to end of stream; bounded by the socket timeout). */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketException e) {
            return true; // reset by the server counts as closed
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
