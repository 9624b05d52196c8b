package io.varve.server.cluster;

import io.varve.server.resp.RedisError;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One command sent to another node's client port and its one-line reply: how a node hands a topology
 * operation to the leader of the metadata group. A connection per call (operations are rare); {@code AUTH}
 * first when the nodes have a password. Replies other than a simple string, integer or bulk string are not
 * expected from the operations and are refused.
 */
final class PeerRequest {

    static final int TIMEOUT_MS = 60_000;

    private PeerRequest() {
    }

    /**
     * The reply's text.
     *
     * @throws RedisError the other node's error reply, or CLUSTERDOWN if it could not be reached
     */
    static String call(String hostPort, String password, List<String> args) {
        return call(hostPort, password, args, "CLUSTERDOWN the node leading the metadata group (" + hostPort
                + ") did not answer");
    }

    /** {@link #call(String, String, List)}, answering {@code unreachable}: why, if the node could not be reached. */
    static String call(String hostPort, String password, List<String> args, String unreachable) {
        int colon = hostPort.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(hostPort.substring(0, colon),
                    Integer.parseInt(hostPort.substring(colon + 1))), 2_000);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null && !password.isEmpty()) {
                write(out, List.of("AUTH", password));
                read(in);
            }
            write(out, args);
            return read(in);
        } catch (IOException e) {
            throw new RedisError(unreachable + ": " + e.getMessage());
        }
    }

    private static void write(OutputStream out, List<String> args) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] b = arg.getBytes(StandardCharsets.UTF_8);
            bytes.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            bytes.writeBytes(b);
            bytes.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(bytes.toByteArray());
        out.flush();
    }

    private static String read(InputStream in) throws IOException {
        String line = line(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        return switch (line.charAt(0)) {
            case '+', ':' -> line.substring(1);
            case '-' -> throw new RedisError(line.substring(1));
            case '$' -> {
                int length = Integer.parseInt(line.substring(1));
                byte[] body = in.readNBytes(length + 2);
                yield new String(body, 0, length, StandardCharsets.UTF_8);
            }
            default -> throw new IOException("unexpected reply " + line);
        };
    }

    private static String line(InputStream in) throws IOException {
        List<Byte> bytes = new ArrayList<>();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                bytes.add((byte) b);
            }
        }
        if (b < 0) {
            throw new IOException("connection closed");
        }
        byte[] out = new byte[bytes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = bytes.get(i);
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
