package io.varve.stress;

/** One campaign: a workload, a way to break it (kill, damage), and an oracle that judges what is left. */
public interface Campaign {

    /** The short name shown in progress lines and the verdict. */
    String name();

    /** Runs until {@link Settings#cycles()} or the settings' duration is used up. */
    CampaignReport run(Settings settings) throws Exception;
}
