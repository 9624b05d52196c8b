package io.varve.kafka.streams;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.varve.core.Options;

/** The only class of this module that names a Micrometer type; loaded only when Micrometer is present. */
final class MicrometerRegistries {

    private MicrometerRegistries() {
    }

    static Options global(Options options) {
        return options.withMeterRegistry(Metrics.globalRegistry);
    }

    static Options bind(Options options, Object registry) {
        if (!(registry instanceof MeterRegistry meterRegistry)) {
            throw StoreMeters.notARegistry(registry);
        }
        return options.withMeterRegistry(meterRegistry);
    }
}
