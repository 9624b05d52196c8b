package io.varve.jmh.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Turns a JMH JSON result file into the markdown tables of docs/benchmarks.md and PNG charts.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.varve.jmh.report.Report results.json docs/ [&gt; table.md]
 * </pre>
 *
 * Prints markdown to standard output (the lead pastes it under the run's heading) and writes the charts to
 * {@code <out>/charts/}; the markdown links them as {@code charts/NAME.png}, relative to docs/. Every ratio
 * compares results of the same run, so machine load and JDK affect both sides alike.
 */
public final class Report {

    private Report() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Report <jmh-results.json> [output dir, default docs]");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        Path out = Path.of(args.length == 2 ? args[1] : "docs");
        System.out.print(generate(Path.of(args[0]), out));
    }

    /** Reads {@code resultsJson}, writes charts under {@code outDir/charts} and returns the markdown. */
    public static String generate(Path resultsJson, Path outDir) throws IOException {
        List<BenchResult> results = BenchResult.parseAll(Files.readString(resultsJson, StandardCharsets.UTF_8));
        Comparison comparison = new Comparison(results);
        List<String> charts = Charts.write(comparison, outDir.resolve("charts"));
        return markdown(results, comparison, charts);
    }

    static String markdown(List<BenchResult> results, Comparison c, List<String> charts) {
        StringBuilder md = new StringBuilder();
        md.append("Ratios compare results of the same run; above 1 means Varve is better (faster, or lower p99).\n\n");
        throughputTable(md, c);
        latencyTable(md, c);
        groupCommitTable(md, c);
        writeCostTable(md, c);
        unorderedTable(md, c);
        goalsTable(md, c);
        if (!charts.isEmpty()) {
            md.append("#### Charts\n\n");
            for (String chart : charts) {
                md.append("![").append(chart.replace(".png", "")).append("](charts/").append(chart).append(")\n");
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static void throughputTable(StringBuilder md, Comparison c) {
        List<Comparison.Workload> rows = c.workloads().stream().filter(w -> !w.isLatency()).toList();
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### Throughput (ops/s)\n\n");
        md.append("| Workload | Varve | RocksDB | LevelDB-java | Varve / RocksDB | Varve / LevelDB-java |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (Comparison.Workload w : rows) {
            md.append("| ").append(w.name());
            for (String store : Comparison.STORES) {
                BenchResult r = w.get(store);
                md.append(" | ").append(r == null ? "—" : ops(r.opsPerSecond()));
            }
            md.append(" | ").append(ratio(w.ratio(Comparison.ROCKSDB)));
            md.append(" | ").append(ratio(w.ratio(Comparison.LEVELDB))).append(" |\n");
        }
        md.append('\n');
    }

    private static void latencyTable(StringBuilder md, Comparison c) {
        List<Comparison.Workload> rows = c.workloads().stream().filter(Comparison.Workload::isLatency).toList();
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### Read latency (µs, p50 / p99 / p99.9)\n\n");
        md.append("| Workload | Varve | RocksDB | LevelDB-java | RocksDB p99 / Varve p99 | LevelDB-java p99 / Varve p99 |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (Comparison.Workload w : rows) {
            md.append("| ").append(w.name());
            for (String store : Comparison.STORES) {
                BenchResult r = w.get(store);
                md.append(" | ").append(r == null ? "—" : String.format(Locale.ROOT, "%s / %s / %s",
                        micros(r.percentileMicros("50.0")), micros(r.percentileMicros("99.0")),
                        micros(r.percentileMicros("99.9"))));
            }
            md.append(" | ").append(ratio(w.ratio(Comparison.ROCKSDB)));
            md.append(" | ").append(ratio(w.ratio(Comparison.LEVELDB))).append(" |\n");
        }
        md.append('\n');
    }

    private static void groupCommitTable(StringBuilder md, Comparison c) {
        List<Comparison.Workload> rows = c.workloads().stream()
                .filter(w -> w.any().secondary().containsKey("commits")).toList();
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### Group commit: synced writes per fsync\n\n");
        md.append("| Workload | Varve | RocksDB | LevelDB-java |\n|---|---:|---:|---:|\n");
        for (Comparison.Workload w : rows) {
            md.append("| ").append(w.name());
            for (String store : Comparison.STORES) {
                BenchResult r = w.get(store);
                double v = r == null ? Double.NaN : r.commitsPerFsync();
                md.append(" | ").append(Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v));
            }
            md.append(" |\n");
        }
        md.append("\nLevelDB-java cannot count its fsyncs (n/a); it syncs once per write group.\n\n");
    }

    /** The fill and overwrite benchmarks' secondary results (io.varve.jmh.WriteCounters). */
    private static void writeCostTable(StringBuilder md, Comparison c) {
        List<Comparison.Workload> rows = c.workloads().stream()
                .filter(w -> w.any().secondary().containsKey("writeAmp")).toList();
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### Write amplification and stalls\n\n");
        md.append("Bytes written to disk (log + flush + compaction) per byte put, during the shot; stall time per shot; ");
        md.append("level-0 tables left when the shot ended.\n\n");
        md.append("| Workload | Varve amp | RocksDB amp | Varve stall (ms) | RocksDB stall (ms) | Varve L0 | RocksDB L0 |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Comparison.Workload w : rows) {
            md.append("| ").append(w.name());
            for (String metric : List.of("writeAmp", "stallMs", "l0Files")) {
                for (String store : List.of(Comparison.VARVE, Comparison.ROCKSDB)) {
                    BenchResult r = w.get(store);
                    double v = r == null ? Double.NaN : r.secondary().getOrDefault(metric, Double.NaN);
                    md.append(" | ").append(Double.isNaN(v) ? "n/a"
                            : String.format(Locale.ROOT, metric.equals("writeAmp") ? "%.2f" : "%.0f", v));
                }
            }
            md.append(" |\n");
        }
        md.append("\nLevelDB-java keeps no such counters (n/a).\n\n");
    }

    private static void unorderedTable(StringBuilder md, Comparison c) {
        Comparison.Workload ordered = c.find("batch8", Map.of("writeMode", "ordered"));
        Comparison.Workload unordered = c.find("batch8", Map.of("writeMode", "unordered"));
        if (ordered == null || unordered == null) {
            return;
        }
        md.append("#### Unordered vs ordered writes (32 threads, batches of 8)\n\n");
        md.append("| Store | ordered (puts/s) | unordered (puts/s) | unordered / ordered |\n|---|---:|---:|---:|\n");
        for (String store : Comparison.STORES) {
            BenchResult o = ordered.get(store);
            BenchResult u = unordered.get(store);
            if (o == null || u == null) {
                continue;
            }
            String gain = store.equals(Comparison.LEVELDB) ? "n/a (no unordered mode)"
                    : ratio(u.opsPerSecond() / o.opsPerSecond());
            md.append("| ").append(Comparison.displayName(store)).append(" | ").append(ops(o.opsPerSecond()))
                    .append(" | ").append(ops(u.opsPerSecond())).append(" | ").append(gain).append(" |\n");
        }
        md.append('\n');
    }

    /** A goal: what it is, the value this run reached (NaN if not run), the target, and the direction. */
    private record Goal(String name, double value, double target) {
    }

    private static void goalsTable(StringBuilder md, Comparison c) {
        List<Goal> goals = new ArrayList<>();
        Comparison.Workload fill = c.find("fillrandom", Map.of("valueSize", "100"));
        goals.add(new Goal("fillrandom (100 B) vs RocksDB", ratioOf(fill, Comparison.ROCKSDB), 1.2));
        for (Comparison.Workload w : c.byMethod("readrandom")) {
            goals.add(new Goal(w.name() + " vs RocksDB", w.ratio(Comparison.ROCKSDB), 1.0));
            goals.add(new Goal(w.name() + " vs LevelDB-java", w.ratio(Comparison.LEVELDB), 3.0));
        }
        if (c.byMethod("readrandom").isEmpty()) {
            goals.add(new Goal("readrandom vs RocksDB", Double.NaN, 1.0));
        }
        Comparison.Workload seek = c.find("seekrandom", Map.of());
        goals.add(new Goal("seekrandom vs RocksDB", ratioOf(seek, Comparison.ROCKSDB), 1.0));
        Comparison.Workload rww = c.find("readwhilewriting", Map.of());
        goals.add(new Goal("readwhilewriting: RocksDB p99 / Varve p99", ratioOf(rww, Comparison.ROCKSDB), 1.0));
        Comparison.Workload ordered = c.find("batch8", Map.of("writeMode", "ordered"));
        Comparison.Workload unordered = c.find("batch8", Map.of("writeMode", "unordered"));
        goals.add(new Goal("Varve unordered / ordered at 32 threads",
                varveValue(unordered, BenchResult::opsPerSecond) / varveValue(ordered, BenchResult::opsPerSecond),
                1.4));
        Comparison.Workload sync64 = c.find("syncwrite_t64", Map.of());
        goals.add(new Goal("Varve commits per fsync, 64 synced writers",
                varveValue(sync64, BenchResult::commitsPerFsync), 16));

        md.append("#### Goals\n\n| Goal | Target | This run | Met |\n|---|---:|---:|---|\n");
        for (Goal g : goals) {
            boolean ran = Double.isFinite(g.value());
            md.append("| ").append(g.name()).append(" | ≥ ").append(number(g.target())).append(" | ")
                    .append(ran ? String.format(Locale.ROOT, "%.2f", g.value()) : "not run").append(" | ")
                    .append(!ran ? "—" : g.value() >= g.target() ? "yes" : "**no**").append(" |\n");
        }
        md.append('\n');
    }

    private static double ratioOf(Comparison.Workload w, String peer) {
        return w == null ? Double.NaN : w.ratio(peer);
    }

    private static double varveValue(Comparison.Workload w, ToDoubleFunction<BenchResult> f) {
        if (w == null || w.get(Comparison.VARVE) == null) {
            return Double.NaN;
        }
        return f.applyAsDouble(w.get(Comparison.VARVE));
    }

    static String ops(double v) {
        if (!Double.isFinite(v)) {
            return "—";
        }
        if (v >= 1e6) {
            return String.format(Locale.ROOT, "%.2f M", v / 1e6);
        }
        if (v >= 1e3) {
            return String.format(Locale.ROOT, "%.1f k", v / 1e3);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String ratio(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f×", v) : "—";
    }

    private static String micros(double v) {
        if (!Double.isFinite(v)) {
            return "—";
        }
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e6 ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }
}
