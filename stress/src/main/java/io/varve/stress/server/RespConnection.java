package io.varve.stress.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A bare RESP connection for the hostile-clients campaign: raw bytes out, and, for the well-behaved client,
 * commands with their replies (simple strings, errors, integers, bulk strings; enough for AUTH, SET, GET).
 * A read waits at most the socket timeout, a hang detector.
 */
final class RespConnection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RespConnection(int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
        socket.setSoTimeout(timeoutMillis);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    static byte[] command(String... args) {
        StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Sends a command and returns its reply: "+OK", "-ERR ...", ":1", the bulk's text, or null for a nil. */
    String call(String... args) throws IOException {
        send(command(args));
        try {
            return reply();
        } catch (SocketTimeoutException e) {
            // Names the request a hang left unanswered, and the client's port to find it in CLIENT LIST.
            throw new SocketTimeoutException("no reply to " + String.join(" ", args) + " (client port "
                    + socket.getLocalPort() + ")");
        }
    }

    String reply() throws IOException {
        String line = line();
        if (line.startsWith("$")) {
            int length = Integer.parseInt(line.substring(1));
            if (length < 0) {
                return null;
            }
            byte[] bulk = in.readNBytes(length + 2);
            if (bulk.length != length + 2) {
                throw new IOException("connection closed in a bulk reply");
            }
            return new String(bulk, 0, length, StandardCharsets.UTF_8);
        }
        return line;
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("connection closed by the server");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** Reads and drops the replies that have already arrived; returns how many of them were errors. */
    int drainErrors() throws IOException {
        int errors = 0;
        boolean lineStart = true;
        while (in.available() > 0) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            if (lineStart && c == '-') {
                errors++;
            }
            lineStart = c == '\n';
        }
        return errors;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a socket the server may already have closed
        }
    }
}
