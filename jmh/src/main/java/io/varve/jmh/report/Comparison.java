package io.varve.jmh.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The results of one run grouped by workload, each workload holding one result per store, with the ratios
 * that the report is about. Ratios always read "more than 1 means Varve is better": Varve's throughput over
 * the peer's, or for latency the peer's p99 over Varve's.
 */
final class Comparison {

    static final String VARVE = "varve";
    static final String ROCKSDB = "rocksdb";
    static final String LEVELDB = "leveldb";
    static final List<String> STORES = List.of(VARVE, ROCKSDB, LEVELDB);

    /** Families in the order of docs/benchmarks.md; any other family follows, in the order found. */
    private static final List<String> FAMILY_ORDER = List.of("FillBenchmark", "OverwriteBenchmark",
            "ReadRandomBenchmark", "ScanBenchmark", "ReadWhileWritingBenchmark", "SyncWriteBenchmark",
            "UnorderedWriteBenchmark", "ManyCallersBenchmark");

    /**
     * A ratio over the rounds of a run: the median of the per-round ratios, and its error relative to it. With
     * two or more rounds the error is half the range of the per-round ratios (their spread); with one round it
     * is JMH's confidence interval of both scores combined (relative errors added in quadrature), NaN when
     * JMH gave none.
     */
    record Ratio(double median, double relativeError, int rounds) {
        static final Ratio NONE = new Ratio(Double.NaN, Double.NaN, 0);
    }

    /** A workload and its results per store: one per round, in round order (absent stores are missing). */
    record Workload(String name, String family, String method, Map<String, List<BenchResult>> byStore) {

        /** The store's result of the median round by score (the lower middle one for an even count), or null. */
        BenchResult get(String store) {
            List<BenchResult> rounds = byStore.get(store);
            if (rounds == null || rounds.isEmpty()) {
                return null;
            }
            List<BenchResult> sorted = new ArrayList<>(rounds);
            sorted.sort(Comparator.comparingDouble(BenchResult::score));
            return sorted.get((sorted.size() - 1) / 2);
        }

        BenchResult any() {
            return byStore.values().iterator().next().getFirst();
        }

        boolean isLatency() {
            return any().isLatency();
        }

        String param(String name) {
            return any().params().get(name);
        }

        /** Varve over {@code peer}: throughput ratio, or the peer's p99 over Varve's for latency; NaN if absent. */
        double ratio(String peer) {
            return ratioOverRounds(peer).median();
        }

        /** The median over rounds of Varve over {@code peer}, with its error; see {@link Ratio}. */
        Ratio ratioOverRounds(String peer) {
            List<BenchResult> varve = byStore.getOrDefault(VARVE, List.of());
            List<BenchResult> other = byStore.getOrDefault(peer, List.of());
            List<Double> ratios = new ArrayList<>();
            double lastError = Double.NaN;
            for (BenchResult v : varve) {
                for (BenchResult o : other) {
                    if (o.round() == v.round()) {
                        ratios.add(roundRatio(v, o));
                        lastError = Math.hypot(v.relativeError(), o.relativeError());
                    }
                }
            }
            if (ratios.isEmpty()) {
                return Ratio.NONE;
            }
            ratios.sort(null);
            int n = ratios.size();
            double median = n % 2 == 1 ? ratios.get(n / 2) : (ratios.get(n / 2 - 1) + ratios.get(n / 2)) / 2;
            double error = n == 1 ? (isLatency() ? Double.NaN : lastError)
                    : (ratios.getLast() - ratios.getFirst()) / 2 / median;
            return new Ratio(median, error, n);
        }

        private double roundRatio(BenchResult varve, BenchResult other) {
            if (isLatency()) {
                return other.percentileMicros("99.0") / varve.percentileMicros("99.0");
            }
            return varve.opsPerSecond() / other.opsPerSecond();
        }
    }

    private final List<Workload> workloads;
    /** How many rounds the run had (1 for a lone run). */
    private final int rounds;

    Comparison(List<BenchResult> results) {
        Map<String, Set<String>> varying = varyingParams(results);
        Map<String, Workload> byName = new LinkedHashMap<>();
        for (BenchResult r : results) {
            String name = label(r, varying.get(r.family()));
            Workload w = byName.computeIfAbsent(r.family() + "." + name,
                    k -> new Workload(name, r.family(), r.method(), new LinkedHashMap<>()));
            w.byStore().computeIfAbsent(r.store(), k -> new ArrayList<>()).add(r);
        }
        List<Workload> sorted = new ArrayList<>(byName.values());
        sorted.sort(Comparator.comparingInt((Workload w) -> familyRank(w.family()))
                .thenComparing(Workload::name, Comparison::naturalOrder));
        for (Workload w : sorted) {
            w.byStore().values().forEach(l -> l.sort(Comparator.comparingInt(BenchResult::round)));
        }
        this.workloads = List.copyOf(sorted);
        this.rounds = (int) results.stream().mapToInt(BenchResult::round).distinct().count();
    }

    /**
     * Per family, the parameters (other than store and keys) that take more than one value in this run:
     * only those need to be in a workload's name ("fillrandom valueSize=1000", but plain "seekrandom").
     */
    private static Map<String, Set<String>> varyingParams(List<BenchResult> results) {
        Map<String, Map<String, Set<String>>> values = new HashMap<>();
        for (BenchResult r : results) {
            r.params().forEach((k, v) -> values.computeIfAbsent(r.family(), f -> new HashMap<>())
                    .computeIfAbsent(k, x -> new HashSet<>()).add(v));
        }
        Map<String, Set<String>> varying = new HashMap<>();
        values.forEach((family, params) -> {
            Set<String> names = new HashSet<>();
            params.forEach((k, v) -> {
                if (v.size() > 1 && !k.equals("store") && !k.equals("keys")) {
                    names.add(k);
                }
            });
            varying.put(family, names);
        });
        return varying;
    }

    private static String label(BenchResult r, Set<String> varying) {
        StringBuilder sb = new StringBuilder(r.method());
        r.params().forEach((k, v) -> {
            if (varying.contains(k)) {
                sb.append(' ').append(k).append('=').append(v);
            }
        });
        return sb.toString();
    }

    /** Compares runs of digits by value, so syncwrite_t8 sorts before syncwrite_t64. */
    static int naturalOrder(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (Character.isDigit(ca) && Character.isDigit(cb)) {
                int ei = i;
                int ej = j;
                while (ei < a.length() && Character.isDigit(a.charAt(ei))) {
                    ei++;
                }
                while (ej < b.length() && Character.isDigit(b.charAt(ej))) {
                    ej++;
                }
                int cmp = new java.math.BigInteger(a.substring(i, ei))
                        .compareTo(new java.math.BigInteger(b.substring(j, ej)));
                if (cmp != 0) {
                    return cmp;
                }
                i = ei;
                j = ej;
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static int familyRank(String family) {
        int i = FAMILY_ORDER.indexOf(family);
        return i < 0 ? FAMILY_ORDER.size() : i;
    }

    int rounds() {
        return rounds;
    }

    List<Workload> workloads() {
        return workloads;
    }

    List<Workload> byMethod(String method) {
        return workloads.stream().filter(w -> w.method().equals(method)).toList();
    }

    /** The first workload of {@code method} whose parameters include all of {@code params}, or null. */
    Workload find(String method, Map<String, String> params) {
        for (Workload w : byMethod(method)) {
            boolean matches = params.entrySet().stream()
                    .allMatch(e -> e.getValue().equals(w.param(e.getKey())));
            if (matches) {
                return w;
            }
        }
        return null;
    }

    static String displayName(String store) {
        return switch (store) {
            case VARVE -> "Varve";
            case ROCKSDB -> "RocksDB";
            case LEVELDB -> "LevelDB-java";
            default -> store;
        };
    }
}
