package io.varve.stress;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The short CI versions of the campaigns (bin/stress runs the long ones) live in {@link EngineCampaignsTest},
 * {@link RaftLogCampaignsTest}, {@link ServerCampaignsTest} and {@link ClusterCampaignTest}: a few kill
 * cycles, a few thousand mutations. Each must pass; known engine-core defects are reported in the verdict,
 * not failed on. They are four classes so that the module's surefire forks can run them side by side (a
 * fork runs one class at a time).
 */
final class CiCampaigns {

    private CiCampaigns() {
    }

    /**
     * A run of {@code cycles} cycles from {@code seed} in {@code work}. The ten minutes are a budget that only
     * a hang meets, not an assertion: the cycle count ends the run.
     */
    static Settings settings(Path work, long cycles, long seed) {
        return new Settings(cycles, Duration.ofMinutes(10), seed, work, Path.of("target", "reproducers"), System.out);
    }
}
