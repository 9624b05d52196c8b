package io.varve.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of INFO: {@code # Section} headers and {@code name:value} lines separated by CRLF, as Redis
 * prints them, so tools that parse INFO keep working. Each section comes from an {@link InfoSource}
 * ({@link InfoSections} builds the server's). Field names follow Redis where a field means the same thing;
 * engine internals are in a {@code varve} section. See docs/server.md for the full list.
 */
final class InfoReport {

    private static final List<String> DEFAULT_SECTIONS =
            List.of("server", "clients", "memory", "persistence", "stats", "replication", "cpu", "cluster",
                    "keyspace", "varve");
    /** "all" adds the per-command and per-error sections, which are long. */
    private static final List<String> ALL_SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "commandstats", "errorstats", "cluster", "keyspace", "varve");

    private final Map<String, InfoSource> sources = new LinkedHashMap<>();

    InfoReport(List<InfoSource> sources) {
        for (InfoSource source : sources) {
            this.sources.put(source.name(), source);
        }
    }

    String render(List<String> requested) {
        List<String> sections = requested.contains("all") || requested.contains("everything") ? ALL_SECTIONS
                : requested.isEmpty() || requested.contains("default") ? DEFAULT_SECTIONS : requested;
        StringBuilder out = new StringBuilder();
        for (String name : sections) {
            InfoSource source = sources.get(name);
            if (source == null) {
                continue; // unknown sections are silently empty, as in Redis
            }
            Map<String, Object> fields = new LinkedHashMap<>();
            source.addFields(fields);
            if (!out.isEmpty()) {
                out.append("\r\n");
            }
            out.append("# ").append(Character.toUpperCase(name.charAt(0))).append(name.substring(1)).append("\r\n");
            fields.forEach((k, v) -> out.append(k).append(':').append(v).append("\r\n"));
        }
        return out.toString();
    }
}
