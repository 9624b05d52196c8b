package io.varve.core.internal.metrics;

import io.varve.core.metrics.EngineStatistics;

/**
 * The one door to Micrometer. A database without a registry gets {@link MeterBinding#NONE} and never loads a
 * Micrometer class: only with a registry is {@link MicrometerMeters}, the single class that references
 * Micrometer, loaded at all. That keeps micrometer-core an optional dependency that embedders need not ship.
 */
public final class EngineMeters {

    private EngineMeters() {
    }

    /**
     * Registers the meters of one database in {@code registry}.
     *
     * @param registry a {@code io.micrometer.core.instrument.MeterRegistry}, or null for no meters; typed
     *                 Object so that callers and this class link without Micrometer
     * @param database the value of every meter's {@code db} tag, telling databases in one registry apart
     * @param source   read by the meters on every scrape; held weakly by the registry, so whoever owns the
     *                 database must keep a reference to it
     */
    public static MeterBinding bind(Object registry, String database, EngineStatistics source) {
        if (registry == null) {
            return MeterBinding.NONE;
        }
        return MicrometerMeters.register(registry, database, source);
    }
}
