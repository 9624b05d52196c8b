package io.varve.stress.raftlog;

import io.varve.stress.Campaign;
import io.varve.stress.KillVerdictChecks;
import java.time.Duration;

/** The raft-log kill campaign fails for the reasons it is named when its child misbehaves. */
class RaftLogKillVerdictTest extends KillVerdictChecks {

    @Override
    protected Campaign campaign(Duration maxRun, Class<?> child, Duration progressLimit) {
        return new RaftLogKillCampaign(maxRun, child, progressLimit);
    }
}
