package io.varve.jmh.report;

import io.varve.jmh.data.DataSize;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One row of a JMH JSON result file, reduced to what the report needs, with its score turned into a
 * comparable figure: operations per second for throughput-like modes, microseconds for latency percentiles.
 *
 * @param family      benchmark class without package, e.g. "FillBenchmark"
 * @param method      benchmark method, e.g. "fillrandom"
 * @param mode        JMH mode: thrpt, avgt, ss or sample
 * @param params      all parameters, in JMH's order
 * @param score       primary score as JMH reported it
 * @param unit        its unit, e.g. "ops/s" or "ms/op"
 * @param percentiles sample-mode percentiles in JMH's unit, keyed by "50.0", "99.0", "99.9"
 * @param secondary   secondary metrics by name (e.g. commits, fsyncs from @AuxCounters, gc.alloc.rate.norm)
 * @param scoreError  JMH's 99.9% confidence half-width of {@code score}, NaN when it could not tell (one
 *                    iteration, or single-shot)
 * @param round       which round of a repeated run (bin/bench --rounds) produced it; 0 for a lone run
 */
record BenchResult(String family, String method, String mode, Map<String, String> params, double score,
                   String unit, Map<String, Double> percentiles, Map<String, Double> secondary,
                   double scoreError, int round) {

    /** JMH's gc profiler: bytes allocated per benchmark invocation, normalized by its operations. */
    static final String ALLOC_NORM = "gc.alloc.rate.norm";

    static BenchResult fromJson(Map<String, Object> row, int round) {
        String benchmark = (String) row.get("benchmark");
        int lastDot = benchmark.lastIndexOf('.');
        String qualifiedClass = benchmark.substring(0, lastDot);
        String family = qualifiedClass.substring(qualifiedClass.lastIndexOf('.') + 1);
        String method = benchmark.substring(lastDot + 1);

        Map<String, String> params = new LinkedHashMap<>();
        if (row.get("params") instanceof Map<?, ?> p) {
            p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
        }
        Map<?, ?> primary = (Map<?, ?>) row.get("primaryMetric");
        Map<String, Double> percentiles = new TreeMap<>();
        if (primary.get("scorePercentiles") instanceof Map<?, ?> pct) {
            pct.forEach((k, v) -> percentiles.put(String.valueOf(k), Json.number(v)));
        }
        Map<String, Double> secondary = new LinkedHashMap<>();
        if (row.get("secondaryMetrics") instanceof Map<?, ?> sec) {
            sec.forEach((k, v) -> {
                if (v instanceof Map<?, ?> m) {
                    // Older JMH versions prefix profiler metrics with a middle dot ("·gc.alloc.rate.norm").
                    String name = String.valueOf(k);
                    secondary.put(name.startsWith("\u00b7") ? name.substring(1) : name, Json.number(m.get("score")));
                }
            });
        }
        return new BenchResult(family, method, (String) row.get("mode"), params,
                Json.number(primary.get("score")), String.valueOf(primary.get("scoreUnit")), percentiles, secondary,
                Json.number(primary.get("scoreError")), round);
    }

    static List<BenchResult> parseAll(String json) {
        return parseAll(json, 0);
    }

    @SuppressWarnings("unchecked")
    static List<BenchResult> parseAll(String json, int round) {
        Object root = Json.parse(json);
        if (!(root instanceof List<?> rows)) {
            throw new IllegalArgumentException("a JMH JSON result file is an array of results");
        }
        return rows.stream().map(r -> fromJson((Map<String, Object>) r, round)).toList();
    }

    String store() {
        return params.getOrDefault("store", "?");
    }

    boolean isLatency() {
        return mode.equals("sample");
    }

    /**
     * Operations per second. Throughput scores are converted from their unit; a single-shot fill's time is
     * divided into the number of entries it wrote ({@link DataSize#entries}, the formula the benchmark used).
     */
    double opsPerSecond() {
        return switch (mode) {
            case "thrpt" -> score / seconds(unit.substring(unit.indexOf('/') + 1));
            case "avgt", "sample" -> 1.0 / (score * seconds(unit.substring(0, unit.indexOf('/'))));
            case "ss" -> {
                double seconds = score * seconds(unit.substring(0, unit.indexOf('/')));
                String keys = params.get("keys");
                if (keys == null) {
                    yield 1.0 / seconds;
                }
                int valueSize = Integer.parseInt(params.getOrDefault("valueSize", "100"));
                yield DataSize.entries(Long.parseLong(keys), valueSize) / seconds;
            }
            default -> throw new IllegalArgumentException("unknown JMH mode " + mode);
        };
    }

    /**
     * JMH's error relative to the score (0.05 = ±5%), NaN when unknown. For sample mode it is the error of
     * the mean, the only one JMH gives; the percentiles have none.
     */
    double relativeError() {
        return Double.isFinite(scoreError) && score != 0 ? Math.abs(scoreError / score) : Double.NaN;
    }

    /**
     * Bytes allocated per operation from JMH's gc profiler, or NaN when the run had no {@code -prof gc}. A
     * single-shot fill reports bytes per shot: divided here by the entries it wrote, like {@link #opsPerSecond}.
     */
    double allocatedBytesPerOp() {
        Double norm = secondary.get(ALLOC_NORM);
        if (norm == null) {
            return Double.NaN;
        }
        String keys = params.get("keys");
        if (mode.equals("ss") && keys != null) {
            int valueSize = Integer.parseInt(params.getOrDefault("valueSize", "100"));
            return norm / DataSize.entries(Long.parseLong(keys), valueSize);
        }
        return norm;
    }

    /** A sample-mode percentile ("50.0", "99.0", "99.9") in microseconds, or NaN. */
    double percentileMicros(String percentile) {
        Double v = percentiles.get(percentile);
        if (v == null) {
            return Double.NaN;
        }
        return switch (unit.substring(0, unit.indexOf('/'))) {
            case "us" -> v; // JMH's usual unit here: no floating-point round trip
            case "ns" -> v / 1e3;
            case "ms" -> v * 1e3;
            default -> v * seconds(unit.substring(0, unit.indexOf('/'))) * 1e6;
        };
    }

    /** Commits per fsync from the synced-write benchmark's counters, or NaN when fsyncs were not counted. */
    double commitsPerFsync() {
        Double commits = secondary.get("commits");
        Double fsyncs = secondary.get("fsyncs");
        if (commits == null || fsyncs == null || !(fsyncs > 0)) {
            return Double.NaN;
        }
        return commits / fsyncs;
    }

    private static double seconds(String timeUnit) {
        return switch (timeUnit) {
            case "s" -> 1;
            case "ms" -> 1e-3;
            case "us" -> 1e-6;
            case "ns" -> 1e-9;
            case "min" -> 60;
            default -> throw new IllegalArgumentException("unknown time unit " + timeUnit);
        };
    }
}
