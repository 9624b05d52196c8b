package io.varve.core.internal;

import io.varve.core.internal.memtable.Memtable;
import io.varve.core.internal.version.VersionSet;

/** How a {@link WriteBufferBudget} measures and flushes one database: through its read views and its pipeline. */
final class BudgetSource implements WriteBufferBudget.Source {

    private final VersionSet versions;
    private final CommitPipeline pipeline;

    BudgetSource(VersionSet versions, CommitPipeline pipeline) {
        this.versions = versions;
        this.pipeline = pipeline;
    }

    @Override
    public boolean measure(long[] into) {
        long[] bytes = new long[2];
        try {
            versions.forEachView(view -> {
                for (Memtable memtable : view.memtablesNewestFirst()) {
                    bytes[1] += memtable.approximateMemoryUsage();
                }
                bytes[0] += view.mutable().approximateMemoryUsage();
            });
        } catch (IllegalStateException closedMeanwhile) {
            return false;
        }
        into[0] = bytes[0];
        into[1] = bytes[1];
        return true;
    }

    @Override
    public boolean failed() {
        return pipeline.failure() != null;
    }

    @Override
    public void requestFlush() {
        pipeline.rotateNow();
    }
}
