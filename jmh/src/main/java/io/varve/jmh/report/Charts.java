package io.varve.jmh.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PNG bar charts of a run, drawn with XChart: one throughput chart per benchmark family (log scale, since
 * workloads in a family differ by orders of magnitude), one of read latency percentiles, and one of the
 * Varve ratios. Returns the file names written, relative to the charts directory.
 */
final class Charts {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;

    private Charts() {
    }

    static List<String> write(Comparison comparison, Path chartsDir) throws IOException {
        Files.createDirectories(chartsDir);
        List<String> files = new ArrayList<>();

        Map<String, List<Comparison.Workload>> families = new LinkedHashMap<>();
        for (Comparison.Workload w : comparison.workloads()) {
            if (!w.isLatency()) {
                families.computeIfAbsent(w.family(), f -> new ArrayList<>()).add(w);
            }
        }
        for (var family : families.entrySet()) {
            // A log axis cannot show gaps: chart the workloads that every store of the family completed.
            List<String> stores = Comparison.STORES.stream()
                    .filter(s -> family.getValue().stream().anyMatch(w -> positive(w.get(s)))).toList();
            List<Comparison.Workload> complete = family.getValue().stream()
                    .filter(w -> stores.stream().allMatch(s -> positive(w.get(s)))).toList();
            if (complete.isEmpty()) {
                continue;
            }
            CategoryChart chart = chart(family.getKey() + ": throughput (higher is better)", "ops/s, log scale");
            chart.getStyler().setYAxisLogarithmic(true);
            List<String> labels = complete.stream().map(Comparison.Workload::name).toList();
            for (String store : stores) {
                List<Double> y = complete.stream().map(w -> w.get(store).opsPerSecond()).toList();
                addSeries(chart, Comparison.displayName(store), labels, y);
            }
            logBounds(chart);
            save(chart, chartsDir, family.getKey(), files);
        }

        for (Comparison.Workload w : comparison.workloads()) {
            if (!w.isLatency()) {
                continue;
            }
            CategoryChart chart = chart(w.name() + ": read latency (lower is better)", "microseconds, log scale");
            chart.getStyler().setYAxisLogarithmic(true);
            List<String> labels = List.of("p50", "p99", "p99.9");
            for (String store : Comparison.STORES) {
                BenchResult r = w.get(store);
                if (r == null) {
                    continue;
                }
                List<Double> y = List.of(r.percentileMicros("50.0"), r.percentileMicros("99.0"),
                        r.percentileMicros("99.9"));
                if (y.stream().allMatch(v -> Double.isFinite(v) && v > 0)) {
                    addSeries(chart, Comparison.displayName(store), labels, y);
                }
            }
            logBounds(chart);
            save(chart, chartsDir, w.family() + "-" + w.method() + "-latency", files);
        }

        List<Comparison.Workload> all = comparison.workloads();
        if (!all.isEmpty()) {
            CategoryChart chart = chart("Varve relative to its peers (above 1 = Varve better)",
                    "ratio, log scale");
            chart.getStyler().setXAxisLabelRotation(45);
            chart.getStyler().setYAxisLogarithmic(true); // 0.5x and 2x equally far from 1
            List<String> labels = all.stream().map(Comparison.Workload::name).toList();
            addSeries(chart, "Varve / RocksDB", labels,
                    all.stream().map(w -> finiteOrNull(w.ratio(Comparison.ROCKSDB))).toList());
            addSeries(chart, "Varve / LevelDB-java", labels,
                    all.stream().map(w -> finiteOrNull(w.ratio(Comparison.LEVELDB))).toList());
            logBounds(chart);
            save(chart, chartsDir, "ratios", files);
        }
        return files;
    }

    private static CategoryChart chart(String title, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .yAxisTitle(yTitle).build();
        // XChart drops category labels it thinks too crowded; every bar group needs its label.
        chart.getStyler().setXAxisTickMarkSpacingHint(1);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setXAxisLabelRotation(30);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return chart;
    }

    /** Adds a series unless it has no value at all; missing values (null) show as gaps on linear axes. */
    private static void addSeries(CategoryChart chart, String name, List<String> labels, List<Double> y) {
        if (y.stream().allMatch(v -> v == null)) {
            return;
        }
        chart.addSeries(name, labels, y);
    }

    /**
     * XChart's bar charts start the axis at zero unless told otherwise, which a log axis refuses: bound it
     * by the powers of ten around the data.
     */
    private static void logBounds(CategoryChart chart) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        for (var series : chart.getSeriesMap().values()) {
            for (Number n : series.getYData()) {
                if (n != null) {
                    min = Math.min(min, n.doubleValue());
                    max = Math.max(max, n.doubleValue());
                }
            }
        }
        if (max > 0) {
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
            chart.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max) + 1e-9)));
        }
    }

    private static boolean positive(BenchResult r) {
        if (r == null) {
            return false;
        }
        double v = r.opsPerSecond();
        return Double.isFinite(v) && v > 0;
    }

    private static Double finiteOrNull(double v) {
        return Double.isFinite(v) && v > 0 ? v : null;
    }

    /** Writes NAME.png and adds it to {@code files}, unless the chart has no series at all. */
    private static void save(CategoryChart chart, Path dir, String name, List<String> files) throws IOException {
        if (chart.getSeriesMap().isEmpty()) {
            return;
        }
        String file = name + ".png";
        BitmapEncoder.saveBitmap(chart, dir.resolve(file).toString(), BitmapEncoder.BitmapFormat.PNG);
        files.add(file);
    }
}
