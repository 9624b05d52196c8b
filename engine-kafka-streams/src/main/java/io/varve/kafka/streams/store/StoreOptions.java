package io.varve.kafka.streams.store;

import io.varve.core.Options;

import java.util.Map;

/** How a store turns the application's configuration into the options of its database. */
@FunctionalInterface
public interface StoreOptions {

    Options forApplication(Map<String, Object> appConfigs);
}
