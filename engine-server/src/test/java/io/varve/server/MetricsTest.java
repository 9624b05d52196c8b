package io.varve.server;

import io.varve.base.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Prometheus endpoint reports commands per type, latency histograms and connections. */
class MetricsTest {

    @Test
    void prometheusEndpointCountsCommands(@TempDir Path dir) throws Exception {
        int metricsPort = LoopbackPorts.next();
        try (TestServer server = TestServer.start(dir, c -> c.with("metrics-port", Integer.toString(metricsPort)));
             RespClient c = RespClient.connect(server.port())) {
            for (int i = 0; i < 3; i++) {
                c.call("SET", "k", "v");
            }
            c.call("GET", "k");
            c.call("INCR", "k"); // fails: not an integer
            c.call("BOGUS");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.server.metricsPort() + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            String body = response.body();
            assertTrue(body.contains("varve_command_duration_seconds_count{command=\"set\"} 3"), body);
            assertTrue(body.contains("varve_command_duration_seconds_count{command=\"get\"} 1"), body);
            assertTrue(body.contains("varve_command_duration_seconds_bucket{command=\"set\",le="), "histogram buckets");
            assertTrue(body.contains("varve_command_errors_total{command=\"incr\"} 1"), body);
            assertTrue(body.contains("varve_command_rejected_total 1"), body);
            assertTrue(body.contains("varve_connections_active 1"), body);
            for (String standard : new String[] {"jvm_memory_used_bytes{", "jvm_threads_live_threads ",
                    "process_cpu_usage ", "system_cpu_count ", "process_uptime_seconds ", "process_files_open_files ",
                    "jvm_gc_"}) {
                assertTrue(body.contains(standard), "JVM and process meters: " + standard);
            }
            assertTrue(body.contains("varve_read_views_total{db="), "the engine's meters are on the endpoint: " + body);
            assertTrue(body.contains("varve_write_stall_events_total{"), body);
        }
    }
}
