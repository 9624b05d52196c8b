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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns a JMH JSON result file into the markdown tables of docs/benchmarks.md and PNG charts.
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar io.varve.jmh.report.Report results.json docs/ [&gt; table.md]
 * java -cp jmh/target/benchmarks.jar io.varve.jmh.report.Report jmh/target/results/full-20261125-221500/ docs/
 * </pre>
 *
 * The input is one JMH JSON file, or a directory of a repeated run (bin/bench --rounds N), whose files are
 * named {@code r<round>-<store>.json}: then every ratio is the median of the per-round ratios, printed with
 * its spread, and every store's score is its median round. A {@code settings.md} beside the results (bin/bench
 * writes one) is copied into the report, so the peers' configuration travels with the figures.
 *
 * <p>Prints markdown to standard output (the lead pastes it under the run's heading) and writes the charts to
 * {@code <out>/charts/}; the markdown links them as {@code charts/NAME.png}, relative to docs/. Every ratio
 * compares results of the same run, so machine load and JDK affect both sides alike.
 */
public final class Report {

    private static final Pattern ROUND_FILE = Pattern.compile("r(\\d+)-.*\\.json");

    private Report() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: Report <jmh-results.json | results directory> [output dir, default docs]");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        Path out = Path.of(args.length == 2 ? args[1] : "docs");
        System.out.print(generate(Path.of(args[0]), out));
    }

    /**
     * Reads {@code results} (a JSON file or a directory of rounds), writes charts under {@code outDir/charts}
     * and returns the markdown.
     */
    public static String generate(Path results, Path outDir) throws IOException {
        List<BenchResult> all = new ArrayList<>();
        Path settingsFile;
        if (Files.isDirectory(results)) {
            List<Path> files;
            try (Stream<Path> list = Files.list(results)) {
                files = list.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
            }
            if (files.isEmpty()) {
                throw new IOException("no .json result files in " + results);
            }
            for (Path f : files) {
                all.addAll(BenchResult.parseAll(Files.readString(f, StandardCharsets.UTF_8), roundOf(f)));
            }
            settingsFile = results.resolve("settings.md");
        } else {
            all.addAll(BenchResult.parseAll(Files.readString(results, StandardCharsets.UTF_8)));
            settingsFile = results.resolveSibling("settings.md");
        }
        String settings = Files.isRegularFile(settingsFile)
                ? Files.readString(settingsFile, StandardCharsets.UTF_8) : null;
        Comparison comparison = new Comparison(all);
        List<String> charts = Charts.write(comparison, outDir.resolve("charts"));
        return markdown(all, comparison, charts, settings);
    }

    /** The round of a file named {@code r<round>-<anything>.json}; 0 for any other name. */
    static int roundOf(Path file) {
        Matcher m = ROUND_FILE.matcher(file.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : 0;
    }

    static String markdown(List<BenchResult> results, Comparison c, List<String> charts, String settings) {
        StringBuilder md = new StringBuilder();
        md.append("Ratios compare results of the same run; above 1 means Varve is better (faster, or lower p99).\n");
        if (c.rounds() > 1) {
            md.append("The run had ").append(c.rounds()).append(" rounds, each running every store once per ")
                    .append("benchmark in rotating order: a ratio is the median of the per-round ratios, ±half ")
                    .append("their range relative to it; a store's score is its median round.\n\n");
        } else {
            md.append("A single round: the ± beside a ratio combines JMH's 99.9% confidence intervals of both ")
                    .append("scores (none for single-shot and latency results).\n\n");
        }
        if (settings != null) {
            md.append("#### Settings\n\n").append(settings.strip()).append("\n\n");
        }
        throughputTable(md, c);
        latencyTable(md, c);
        groupCommitTable(md, c);
        writeCostTable(md, c);
        allocationTable(md, c);
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
            md.append(" | ").append(ratioWithError(w.ratioOverRounds(Comparison.ROCKSDB)));
            md.append(" | ").append(ratioWithError(w.ratioOverRounds(Comparison.LEVELDB))).append(" |\n");
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
            md.append(" | ").append(ratioWithError(w.ratioOverRounds(Comparison.ROCKSDB)));
            md.append(" | ").append(ratioWithError(w.ratioOverRounds(Comparison.LEVELDB))).append(" |\n");
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

    /** JMH's gc profiler (bin/bench --gc): bytes allocated on the heap per operation. */
    private static void allocationTable(StringBuilder md, Comparison c) {
        List<Comparison.Workload> rows = c.workloads().stream()
                .filter(w -> w.byStore().values().stream().flatMap(List::stream)
                        .anyMatch(r -> r.secondary().containsKey(BenchResult.ALLOC_NORM))).toList();
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### Heap allocation (bytes per operation, JMH gc profiler)\n\n");
        md.append("Includes the benchmark's own allocation, which is the same code for every store; Varve's reads ")
                .append("are its zero-copy calls (value copied into the caller's buffer).\n\n");
        md.append("| Workload | Varve | RocksDB | LevelDB-java |\n|---|---:|---:|---:|\n");
        for (Comparison.Workload w : rows) {
            md.append("| ").append(w.name());
            for (String store : Comparison.STORES) {
                BenchResult r = w.get(store);
                double v = r == null ? Double.NaN : r.allocatedBytesPerOp();
                md.append(" | ").append(Double.isNaN(v) ? "—" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.0f", v));
            }
            md.append(" |\n");
        }
        md.append('\n');
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

    /** "1.23× ±8%", or without the ± when the error is unknown. */
    static String ratioWithError(Comparison.Ratio r) {
        String text = ratio(r.median());
        if (Double.isFinite(r.median()) && Double.isFinite(r.relativeError())) {
            text += String.format(Locale.ROOT, " ±%.0f%%", 100 * r.relativeError());
        }
        return text;
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
