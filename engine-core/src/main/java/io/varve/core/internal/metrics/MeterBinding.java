package io.varve.core.internal.metrics;

/** Meters one database registered; closing removes them from the registry again. Idempotent. */
public interface MeterBinding extends AutoCloseable {

    /** Binds nothing: what a database without a registry holds. */
    MeterBinding NONE = () -> {
    };

    @Override
    void close();
}
