package io.varve.kafka.streams;

import java.util.Objects;

/**
 * What the window and session suppliers share: a store name, Varve's metrics scope, and the retention and
 * segment interval that decide when a segment expires as a whole.
 */
abstract class SegmentedStoreSupplier {

    final String name;
    final long retentionPeriod;
    final long segmentInterval;

    SegmentedStoreSupplier(String name, long retentionPeriod, long segmentInterval) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
    }

    public String name() {
        return name;
    }

    public String metricsScope() {
        return VarveStores.METRICS_SCOPE;
    }

    public long segmentIntervalMs() {
        return segmentInterval;
    }

    public long retentionPeriod() {
        return retentionPeriod;
    }
}
