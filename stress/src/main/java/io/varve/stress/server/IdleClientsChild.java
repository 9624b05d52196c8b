package io.varve.stress.server;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections of the idle-before-AUTH attack, held by a process of their own so that the server's ends
 * and the clients' ends each count against their own process's descriptor limit. Arguments: the server's
 * port and how many connections to open.
 *
 * <p>Every fifth connection sends a SET, which the server must refuse with {@code NOAUTH}; the rest only
 * connect. Reports on stdout: {@code held N} every 500 connections, {@code all N} once it holds all it
 * could ({@code refused N <error>} first if a connect failed, which ends the opening), or {@code wrong
 * <reply>} and exit code 3 if the server answered a SET. Then it holds every connection until its stdin
 * closes — the parent closing it, killing this process, or dying — so an orphan never keeps them open.
 */
public final class IdleClientsChild {
    private static final int TIMEOUT = 30_000;

    private IdleClientsChild() {
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        List<RespConnection> open = new ArrayList<>(connections);
        for (int i = 0; i < connections; i++) {
            RespConnection c;
            try {
                c = new RespConnection(port, TIMEOUT);
            } catch (IOException e) {
                out.println("refused " + open.size() + " " + e);
                break;
            }
            open.add(c);
            if (i % 5 == 0) {
                String reply = c.call("SET", "unauthenticated", "x");
                if (reply == null || !reply.startsWith("-NOAUTH")) {
                    out.println("wrong " + reply);
                    System.exit(3);
                }
            }
            if (open.size() % 500 == 0) {
                out.println("held " + open.size());
            }
        }
        out.println("all " + open.size());
        while (System.in.read() >= 0) {
            // nothing is sent on stdin; its end is the signal to let go
        }
        open.forEach(RespConnection::close);
    }
}
