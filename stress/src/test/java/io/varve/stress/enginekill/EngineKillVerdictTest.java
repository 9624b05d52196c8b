package io.varve.stress.enginekill;

import io.varve.stress.Campaign;
import io.varve.stress.KillVerdictChecks;
import java.time.Duration;

/** The engine kill campaign fails for the reasons it is named when its child misbehaves. */
class EngineKillVerdictTest extends KillVerdictChecks {

    @Override
    protected Campaign campaign(Duration maxRun, Class<?> child, Duration progressLimit) {
        return new EngineKillCampaign(maxRun, child, progressLimit);
    }
}
