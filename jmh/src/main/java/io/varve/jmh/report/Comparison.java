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
            "UnorderedWriteBenchmark");

    /** A workload and its result per store (absent stores are missing from the map). */
    record Workload(String name, String family, String method, Map<String, BenchResult> byStore) {

        BenchResult get(String store) {
            return byStore.get(store);
        }

        BenchResult any() {
            return byStore.values().iterator().next();
        }

        boolean isLatency() {
            return any().isLatency();
        }

        String param(String name) {
            return any().params().get(name);
        }

        /** Varve over {@code peer}: throughput ratio, or the peer's p99 over Varve's for latency; NaN if absent. */
        double ratio(String peer) {
            BenchResult varve = byStore.get(VARVE);
            BenchResult other = byStore.get(peer);
            if (varve == null || other == null) {
                return Double.NaN;
            }
            if (isLatency()) {
                return other.percentileMicros("99.0") / varve.percentileMicros("99.0");
            }
            return varve.opsPerSecond() / other.opsPerSecond();
        }
    }

    private final List<Workload> workloads;

    Comparison(List<BenchResult> results) {
        Map<String, Set<String>> varying = varyingParams(results);
        Map<String, Workload> byName = new LinkedHashMap<>();
        for (BenchResult r : results) {
            String name = label(r, varying.get(r.family()));
            Workload w = byName.computeIfAbsent(r.family() + "." + name,
                    k -> new Workload(name, r.family(), r.method(), new LinkedHashMap<>()));
            w.byStore().put(r.store(), r);
        }
        List<Workload> sorted = new ArrayList<>(byName.values());
        sorted.sort(Comparator.comparingInt((Workload w) -> familyRank(w.family()))
                .thenComparing(Workload::name, Comparison::naturalOrder));
        this.workloads = List.copyOf(sorted);
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
