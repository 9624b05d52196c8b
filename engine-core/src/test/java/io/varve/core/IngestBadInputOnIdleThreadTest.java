package io.varve.core;

import io.varve.core.ingest.CpuPriority;

/**
 * Every bad-input case again with the file work on an idle-priority thread of the database's: the caller
 * must get the same exceptions, of the same types, and the database must stay unchanged.
 */
class IngestBadInputOnIdleThreadTest extends IngestBadInputTest {

    @Override
    Options options() {
        return Options.defaults().withIngestCpuPriority(CpuPriority.IDLE);
    }
}
