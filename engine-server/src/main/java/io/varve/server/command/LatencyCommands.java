package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * LATENCY. HISTOGRAM reports each command's latency distribution ({@link LatencyHistogram}). Varve has no
 * latency monitor of named events (Redis's latency-monitor-threshold is accepted and stored only), so LATEST,
 * HISTORY and GRAPH find no events and RESET resets none.
 */
final class LatencyCommands {

    private LatencyCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("latency", -2, "", (CoordinatedHandler) LatencyCommands::latency);
        b.subcommand("latency", "latest", 2, "admin noscript loading stale");
        b.subcommand("latency", "history", 3, "admin noscript loading stale");
        b.subcommand("latency", "reset", -2, "admin noscript loading stale");
        b.subcommand("latency", "graph", 3, "admin noscript loading stale");
        b.subcommand("latency", "doctor", 2, "admin noscript loading stale");
        b.subcommand("latency", "histogram", -2, "admin noscript loading stale");
        b.subcommand("latency", "help", 2, "loading stale");
    }

    private static void latency(CommandCall c, Dispatcher d) {
        String sub = c.argText(1).toLowerCase(Locale.ROOT);
        Reply r = c.reply();
        switch (sub) {
            case "latest", "history" -> r.arrayHeader(0);
            case "reset" -> r.integer(0);
            case "graph" -> throw new RedisError("ERR No samples available for event '" + c.argText(2) + "'");
            case "doctor" -> r.verbatim("Dave, no latency spike was observed during the lifetime of this instance:"
                    + " Varve keeps no latency monitor of events, so there is nothing to analyse. LATENCY HISTOGRAM"
                    + " reports each command's latency distribution.\n");
            case "histogram" -> histogram(c, d.latency());
            case "help" -> help(r);
            default -> throw new RedisError("ERR unknown subcommand '" + c.argText(1) + "'. Try LATENCY HELP.");
        }
    }

    /** LATENCY HISTOGRAM [command ...]: a container name stands for its subcommands; unknown names are skipped. */
    private static void histogram(CommandCall c, LatencyHistogram latency) {
        Map<String, long[]> all = latency.snapshot();
        Map<String, long[]> chosen = new LinkedHashMap<>();
        if (c.argCount() == 2) {
            chosen.putAll(all);
        }
        for (int i = 2; i < c.argCount(); i++) {
            String name = c.argText(i).toLowerCase(Locale.ROOT);
            all.forEach((command, counts) -> {
                if (command.equals(name) || command.startsWith(name + "|")) {
                    chosen.put(command, counts);
                }
            });
        }
        Reply r = c.reply();
        r.mapHeader(chosen.size());
        chosen.forEach((command, counts) -> {
            r.bulk(command);
            r.mapHeader(2);
            r.bulk("calls");
            long calls = 0;
            List<long[]> cumulative = new ArrayList<>();
            for (int b = 0; b < counts.length; b++) {
                calls += counts[b];
                if (counts[b] > 0) {
                    cumulative.add(new long[] {LatencyHistogram.bucketMicros(b), calls});
                }
            }
            r.integer(calls);
            r.bulk("histogram_usec");
            r.mapHeader(cumulative.size());
            for (long[] bucket : cumulative) {
                r.integer(bucket[0]);
                r.integer(bucket[1]);
            }
        });
    }

    private static void help(Reply r) {
        String[] lines = {"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "DOCTOR", "    Return a human readable latency analysis report.",
            "GRAPH <event>", "    Return an ASCII latency graph for the <event> class.",
            "HISTORY <event>", "    Return time-latency samples for the <event> class.",
            "LATEST", "    Return the latest latency samples for all events.",
            "RESET [<event> ...]", "    Reset latency data of one or more <event> classes.",
            "    (default: reset all data for all event classes)",
            "HISTOGRAM [COMMAND ...]", "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
            "    If no commands are specified then all histograms are replied.",
            "HELP", "    Print this help."};
        r.arrayHeader(lines.length);
        for (String line : lines) {
            r.simple(line);
        }
    }
}
