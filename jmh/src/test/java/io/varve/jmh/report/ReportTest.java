package io.varve.jmh.report;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report on a tiny fabricated JMH result file: parsing, unit conversion, ratios, goals and charts. */
class ReportTest {

    @BeforeAll
    static void headless() {
        System.setProperty("java.awt.headless", "true");
    }

    private static String row(String benchmark, String mode, String params, String primary, String secondary) {
        return """
                {"jmhVersion":"1.37","benchmark":"io.varve.jmh.%s","mode":"%s","threads":1,"forks":1,
                 "jdkVersion":"25","params":{%s},"primaryMetric":{%s},"secondaryMetrics":{%s}}
                """.formatted(benchmark, mode, params, primary, secondary);
    }

    private static String thrpt(double score) {
        return "\"score\":" + score + ",\"scoreError\":\"NaN\",\"scoreUnit\":\"ops/s\"";
    }

    private static String fabricated() {
        String fill = "FillBenchmark.fillrandom";
        String read = "ReadRandomBenchmark.readrandom";
        String rww = "ReadWhileWritingBenchmark.readwhilewriting";
        String sync = "SyncWriteBenchmark.syncwrite_t64";
        String batch = "UnorderedWriteBenchmark.batch8";
        String pct = "\"scorePercentiles\":{\"50.0\":%s,\"99.0\":%s,\"99.9\":%s}";
        String writes = "\"writeAmp\":{\"score\":%s,\"scoreUnit\":\"#\"},\"stallMs\":{\"score\":%s,\"scoreUnit\":\"#\"},"
                + "\"l0Files\":{\"score\":%s,\"scoreUnit\":\"#\"}";
        String counters = "\"commits\":{\"score\":%s,\"scoreUnit\":\"#\"},\"fsyncs\":{\"score\":%s,\"scoreUnit\":\"#\"}";
        List<String> rows = List.of(
                // 1000 keys in 10 ms = 100k ops/s for Varve, 20 ms for RocksDB, 40 ms for LevelDB-java.
                row(fill, "ss", "\"keys\":\"1000\",\"store\":\"varve\",\"valueSize\":\"100\"",
                        "\"score\":10.0,\"scoreError\":\"NaN\",\"scoreUnit\":\"ms/op\"", writes.formatted(2.125, 3.4, 5)),
                row(fill, "ss", "\"keys\":\"1000\",\"store\":\"rocksdb\",\"valueSize\":\"100\"",
                        "\"score\":20.0,\"scoreError\":\"NaN\",\"scoreUnit\":\"ms/op\"", writes.formatted(3.5, 120.6, 2)),
                row(fill, "ss", "\"keys\":\"1000\",\"store\":\"leveldb\",\"valueSize\":\"100\"",
                        "\"score\":40.0,\"scoreError\":\"NaN\",\"scoreUnit\":\"ms/op\"",
                        writes.formatted("\"NaN\"", "\"NaN\"", "\"NaN\"")),
                row(read, "thrpt", "\"cache\":\"hot\",\"keys\":\"1000\",\"store\":\"varve\"", thrpt(300), ""),
                row(read, "thrpt", "\"cache\":\"hot\",\"keys\":\"1000\",\"store\":\"rocksdb\"", thrpt(200), ""),
                row(read, "thrpt", "\"cache\":\"hot\",\"keys\":\"1000\",\"store\":\"leveldb\"", thrpt(50), ""),
                row(read, "thrpt", "\"cache\":\"small\",\"keys\":\"1000\",\"store\":\"varve\"", thrpt(100), ""),
                row(read, "thrpt", "\"cache\":\"small\",\"keys\":\"1000\",\"store\":\"rocksdb\"", thrpt(200), ""),
                row(rww, "sample", "\"keys\":\"1000\",\"store\":\"varve\"",
                        "\"score\":5.0,\"scoreUnit\":\"us/op\"," + pct.formatted(2, 10, 100), ""),
                row(rww, "sample", "\"keys\":\"1000\",\"store\":\"rocksdb\"",
                        "\"score\":5.0,\"scoreUnit\":\"us/op\"," + pct.formatted(3, 20, 400), ""),
                row(sync, "thrpt", "\"keys\":\"1000\",\"store\":\"varve\"", thrpt(1000), counters.formatted(2000, 100)),
                row(sync, "thrpt", "\"keys\":\"1000\",\"store\":\"leveldb\"", thrpt(100), counters.formatted(200, 0)),
                row(batch, "thrpt", "\"keys\":\"1000\",\"store\":\"varve\",\"writeMode\":\"ordered\"", thrpt(1000), ""),
                row(batch, "thrpt", "\"keys\":\"1000\",\"store\":\"varve\",\"writeMode\":\"unordered\"", thrpt(1500), ""));
        return "[" + String.join(",", rows) + "]";
    }

    @Test
    void writesTablesRatiosGoalsAndCharts(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("results.json");
        Files.writeString(json, fabricated());

        String md = Report.generate(json, dir.resolve("docs"));

        // Fill: time per fill turned into ops/s, ratios from the same run.
        assertTrue(md.contains("| fillrandom | 100.0 k | 50.0 k | 25.0 k | 2.00× | 4.00× |"), md);
        assertTrue(md.contains("| readrandom cache=hot | 300.0 | 200.0 | 50.0 | 1.50× | 6.00× |"), md);
        assertTrue(md.contains("| readrandom cache=small | 100.0 | 200.0 | — | 0.50× | — |"), md);
        // Latency: p50 / p99 / p99.9 and RocksDB p99 over Varve p99.
        assertTrue(md.contains("| readwhilewriting | 2.0 / 10.0 / 100 | 3.0 / 20.0 / 400 | — | 2.00× | — |"), md);
        // Group commit: 2000 commits over 100 fsyncs; LevelDB-java's zero fsyncs are unknown, not infinite.
        assertTrue(md.contains("| syncwrite_t64 | 20.0 | n/a | n/a |"), md);
        assertTrue(md.contains("| Varve | 1.0 k | 1.5 k | 1.50× |"), md);
        // Write cost: amplification, stall time and level-0 backlog side by side; LevelDB-java cannot count.
        assertTrue(md.contains("| fillrandom | 2.13 | 3.50 | 3 | 121 | 5 | 2 |"), md);
        // Goals.
        assertTrue(md.contains("| fillrandom (100 B) vs RocksDB | ≥ 1.20 | 2.00 | yes |"), md);
        assertTrue(md.contains("| readrandom cache=small vs RocksDB | ≥ 1 | 0.50 | **no** |"), md);
        assertTrue(md.contains("| Varve unordered / ordered at 32 threads | ≥ 1.40 | 1.50 | yes |"), md);
        assertTrue(md.contains("| Varve commits per fsync, 64 synced writers | ≥ 16 | 20.00 | yes |"), md);
        assertTrue(md.contains("| seekrandom vs RocksDB | ≥ 1 | not run | — |"), md);

        Path charts = dir.resolve("docs/charts");
        for (String chart : List.of("FillBenchmark.png", "ReadRandomBenchmark.png", "ratios.png",
                "ReadWhileWritingBenchmark-readwhilewriting-latency.png")) {
            Path png = charts.resolve(chart);
            assertTrue(Files.size(png) > 1000, chart);
            assertTrue(md.contains("(charts/" + chart + ")"), chart);
        }
    }

    private static String readRow(String store, double score, double error, double allocNorm) {
        return row("ReadRandomBenchmark.readrandom", "thrpt", "\"keys\":\"1000\",\"store\":\"" + store + "\"",
                "\"score\":" + score + ",\"scoreError\":" + error + ",\"scoreUnit\":\"ops/s\"",
                "\"gc.alloc.rate.norm\":{\"score\":" + allocNorm + ",\"scoreUnit\":\"B/op\"}");
    }

    @Test
    void repeatedRunTakesTheMedianOfPerRoundRatiosWithItsSpread(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("results");
        Files.createDirectories(results);
        // Per-round ratios Varve / RocksDB: 1.0, 3.0 (a noisy round), 1.2 -> median 1.2, spread ±(3.0-1.0)/2/1.2.
        double[][] rounds = {{100, 100}, {300, 100}, {120, 100}};
        for (int i = 0; i < rounds.length; i++) {
            Files.writeString(results.resolve("r" + (i + 1) + "-varve.json"),
                    "[" + readRow("varve", rounds[i][0], 1, 0.5) + "]");
            Files.writeString(results.resolve("r" + (i + 1) + "-rocksdb.json"),
                    "[" + readRow("rocksdb", rounds[i][1], 1, 96) + "]");
        }
        Files.writeString(results.resolve("settings.md"), "- block size: 4096 bytes\n");

        String md = Report.generate(results, dir.resolve("docs"));

        assertTrue(md.contains("The run had 3 rounds"), md);
        // Varve's median round scored 120; the ratio is the median of the rounds' ratios, not of the scores.
        assertTrue(md.contains("| readrandom | 120.0 | 100.0 | — | 1.20× ±83% | — |"), md);
        assertTrue(md.contains("- block size: 4096 bytes"), md);
        assertTrue(md.contains("| readrandom | 0.50 | 96 | — |"), md);
    }

    @Test
    void singleRoundPrintsJmhErrorsCombined(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("results.json");
        // 3% and 4% relative errors combine to 5%.
        Files.writeString(json, "[" + readRow("varve", 200, 6, 0) + "," + readRow("rocksdb", 100, 4, 0) + "]");

        String md = Report.generate(json, dir.resolve("docs"));

        assertTrue(md.contains("| readrandom | 200.0 | 100.0 | — | 2.00× ±5% | — |"), md);
        assertEquals(3, Report.roundOf(Path.of("r3-leveldb.json")));
        assertEquals(0, Report.roundOf(Path.of("results.json")));
    }

    @Test
    void jsonReaderHandlesJmhQuirks() {
        Object parsed = Json.parse("{\"a\":[1,-2.5e3,\"NaN\",NaN,true,null],\"b\":\"q\\\"\\u00b5\"}");
        Map<?, ?> map = (Map<?, ?>) parsed;
        List<?> a = (List<?>) map.get("a");
        assertEquals(-2500.0, Json.number(a.get(1)));
        assertTrue(Double.isNaN(Json.number(a.get(2))));
        assertTrue(Double.isNaN(Json.number(a.get(3))));
        assertEquals("q\"µ", map.get("b"));
    }

    @Test
    void sortsNumbersInNamesByValue() {
        assertTrue(Comparison.naturalOrder("syncwrite_t8", "syncwrite_t64") < 0);
        assertTrue(Comparison.naturalOrder("syncwrite_t64", "syncwrite_t8") > 0);
        assertEquals(0, Comparison.naturalOrder("fill", "fill"));
    }
}
