package io.varve.stress;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a campaign did: cycles run, how each ended (outcome name to count), failures, and known defects hit.
 * The campaign passes when it has no failure; known defects are listed but do not fail it.
 */
public final class CampaignReport {
    private final String campaign;
    private final Map<String, Long> outcomes = new TreeMap<>();
    private final Map<KnownDefect, Long> knownDefects = new EnumMap<>(KnownDefect.class);
    private final List<Failure> failures = new ArrayList<>();
    private long cycles;
    private long millis;

    public CampaignReport(String campaign) {
        this.campaign = campaign;
    }

    public void cycle(String outcome) {
        cycles++;
        outcomes.merge(outcome, 1L, Long::sum);
    }

    public void knownDefect(KnownDefect defect) {
        cycles++;
        knownDefects.merge(defect, 1L, Long::sum);
    }

    public void failure(Failure failure) {
        cycles++;
        failures.add(failure);
    }

    public void finished(long elapsedMillis) {
        this.millis = elapsedMillis;
    }

    public String campaign() {
        return campaign;
    }

    public long cycles() {
        return cycles;
    }

    public long millis() {
        return millis;
    }

    public Map<String, Long> outcomes() {
        return Map.copyOf(outcomes);
    }

    public Map<KnownDefect, Long> knownDefects() {
        return Map.copyOf(knownDefects);
    }

    public List<Failure> failures() {
        return List.copyOf(failures);
    }

    public boolean passed() {
        return failures.isEmpty();
    }

    /** The one-line verdict. */
    public String verdict() {
        StringBuilder b = new StringBuilder();
        b.append(passed() ? "PASS " : "FAIL ").append(campaign).append(": ").append(cycles).append(" cycles in ")
                .append(String.format("%.1f", millis / 1000.0)).append(" s; ").append(outcomes);
        if (!failures.isEmpty()) {
            b.append("; ").append(failures.size()).append(" failures, first: cycle ").append(failures.getFirst().cycle())
                    .append(": ").append(failures.getFirst().what());
            if (failures.getFirst().reproducer() != null) {
                b.append(" (reproducer ").append(failures.getFirst().reproducer()).append(')');
            }
        }
        if (!knownDefects.isEmpty()) {
            b.append("; known defects hit:");
            knownDefects.forEach((d, n) -> b.append(' ').append(d.name()).append(" x").append(n));
        }
        return b.toString();
    }
}
