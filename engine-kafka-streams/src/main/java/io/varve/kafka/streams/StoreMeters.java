package io.varve.kafka.streams;

import io.varve.core.Options;

import java.util.Map;

/**
 * Where a store's engine meters go in Micrometer ({@link VarveStoreConfig#METER_REGISTRY}). Micrometer is an
 * optional dependency: without it on the class path the stores publish nothing and no Micrometer class is ever
 * loaded, since only {@link MicrometerRegistries} names one, and it is reached only once Micrometer is known to
 * be present.
 */
final class StoreMeters {

    /** Publish to Micrometer's global registry, where frameworks such as Spring Boot gather meters. */
    static final String GLOBAL = "global";
    /** Publish nothing. */
    static final String NONE = "none";

    private static final boolean MICROMETER_PRESENT = micrometerPresent();

    private StoreMeters() {
    }

    private static boolean micrometerPresent() {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry", false, StoreMeters.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** {@code options} with the meter registry {@code appConfigs} names, if any and if Micrometer is present. */
    static Options apply(Options options, Map<String, ?> appConfigs) {
        Object setting = appConfigs == null ? null : appConfigs.get(VarveStoreConfig.METER_REGISTRY);
        if (setting == null) {
            setting = GLOBAL;
        }
        if (setting instanceof String name) {
            return switch (name.trim()) {
                case NONE -> options;
                case GLOBAL -> MICROMETER_PRESENT ? MicrometerRegistries.global(options) : options;
                default -> throw notARegistry(setting);
            };
        }
        if (!MICROMETER_PRESENT) {
            throw notARegistry(setting);
        }
        return MicrometerRegistries.bind(options, setting);
    }

    static IllegalArgumentException notARegistry(Object setting) {
        return new IllegalArgumentException(VarveStoreConfig.METER_REGISTRY + " must be a Micrometer MeterRegistry, \""
                + GLOBAL + "\" or \"" + NONE + "\": " + setting);
    }
}
