package io.varve.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code GET /metrics} in the Prometheus text format, served by the JDK's built-in HTTP server on one
 * thread: scrapes are rare and cheap, so this needs no second Netty pipeline.
 */
final class MetricsEndpoint {

    private final HttpServer http;
    private final ExecutorService executor;

    private MetricsEndpoint(HttpServer http, ExecutorService executor) {
        this.http = http;
        this.executor = executor;
    }

    static MetricsEndpoint start(InetSocketAddress address, ServerMetrics metrics) throws IOException {
        HttpServer http = HttpServer.create(address, 16);
        http.createContext("/metrics", exchange -> respond(exchange, metrics));
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "varve-metrics");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        http.start();
        return new MetricsEndpoint(http, executor);
    }

    private static void respond(HttpExchange exchange, ServerMetrics metrics) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    int port() {
        return http.getAddress().getPort();
    }

    void stop() {
        http.stop(0);
        executor.shutdownNow();
    }
}
