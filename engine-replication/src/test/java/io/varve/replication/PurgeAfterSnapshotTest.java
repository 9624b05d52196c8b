package io.varve.replication;

import io.varve.base.LoopbackPorts;
import io.varve.raftlog.RaftLogOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Snapshots let the process's periodic purge ({@link ReplicationProcess#purge}) delete the shared log's files:
 * after two snapshots jraft has truncated the log before the first, and one purge removes the files that held
 * only those entries.
 */
class PurgeAfterSnapshotTest {

    @Test
    void purgeDeletesFilesBehindSnapshots(@TempDir Path dir) throws Exception {
        String address = "127.0.0.1:" + LoopbackPorts.next();
        RaftLogOptions log = RaftLogOptions.defaults().withTargetFileSize(16 << 10).withPurgeThreshold(16 << 10);
        try (ReplicationProcess process = ReplicationProcess.open(dir, address, 0, log)) {
            ReplicatedDb db = ReplicatedDb.open(process, "purged", List.of(address), TestCluster.fastOptions());
            try {
                db.stateMachine().leadership().get(TestCluster.WAIT_SECONDS, TimeUnit.SECONDS);
                byte[] value = new byte[1024];
                for (int i = 0; i < 400; i++) {
                    db.put(("key-" + i).getBytes(StandardCharsets.UTF_8), value);
                }
                long first = db.firstLogIndex().orElseThrow();
                long filesBefore = logFiles(dir);
                db.snapshot();
                db.put("between".getBytes(StandardCharsets.UTF_8), value);
                db.snapshot(); // jraft drops the log up to the previous snapshot
                db.put("after".getBytes(StandardCharsets.UTF_8), value);
                assertTrue(db.firstLogIndex().orElseThrow() > first + 400, "the log was truncated");

                process.purge();
                long filesAfter = logFiles(dir);
                assertTrue(filesAfter < filesBefore / 2, filesBefore + " files before, " + filesAfter + " after");
            } finally {
                db.close();
            }
        }
    }

    private static long logFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("raftlog"))) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
