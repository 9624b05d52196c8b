package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.conf.ConfigurationManager;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.codec.v2.LogEntryV2CodecFactory;
import com.alipay.sofa.jraft.option.LogStorageOptions;
import com.alipay.sofa.jraft.option.RaftMetaStorageOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.storage.LogStorage;
import com.alipay.sofa.jraft.storage.RaftMetaStorage;
import io.varve.base.fs.MemFileSystem;
import io.varve.raftlog.RaftLogOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The point of one shared engine: synced appends of different groups and a node's meta update that arrive
 * while an fsync is in progress are all made durable by the next single fsync, not one each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SharedFsyncTest {

    @Test
    void appendsOfOtherGroupsAndAMetaUpdateQueuedBehindAnFsyncShareTheNext() throws Exception {
        GatedFileSystem fs = new GatedFileSystem(new MemFileSystem());
        try (SharedRaftLog shared = SharedRaftLog.open(Path.of("/fsync"), RaftLogOptions.defaults().withFileSystem(fs))) {
            VarveRaftServiceFactory factory = shared.serviceFactory();
            List<LogStorage> logs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                LogStorage log = factory.createLogStorage("group-" + i, new RaftOptions());
                LogStorageOptions opts = new LogStorageOptions();
                opts.setConfigurationManager(new ConfigurationManager());
                opts.setLogEntryCodecFactory(LogEntryV2CodecFactory.getInstance());
                assertTrue(log.init(opts));
                logs.add(log);
            }
            RaftMetaStorage meta = factory.createRaftMetaStorage("group-1/meta", new RaftOptions());
            assertTrue(meta.init(new RaftMetaStorageOptions()));

            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch release = new CountDownLatch(1);
                fs.arm(release);
                long syncsBefore = fs.syncs.get();
                Future<Integer> first = pool.submit(() -> logs.get(0).appendEntries(Entries.data(1, 3, 1)));
                assertTrue(fs.atGate.await(30, TimeUnit.SECONDS), "the first append reached its fsync");
                List<Future<?>> queued = List.of(
                        pool.submit(() -> logs.get(1).appendEntries(Entries.data(1, 2, 1))),
                        pool.submit(() -> logs.get(2).appendEntries(Entries.data(1, 5, 1))),
                        pool.submit(() -> meta.setTermAndVotedFor(2, new PeerId("127.0.0.1", 8200))));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (shared.engine().stats().queuedWrites() < queued.size()) {
                    assertTrue(System.nanoTime() < deadline, "writers did not queue up");
                    Thread.onSpinWait();
                }
                release.countDown();
                assertEquals(3, first.get(30, TimeUnit.SECONDS));
                assertEquals(2, queued.get(0).get(30, TimeUnit.SECONDS));
                assertEquals(5, queued.get(1).get(30, TimeUnit.SECONDS));
                assertEquals(true, queued.get(2).get(30, TimeUnit.SECONDS));
                assertEquals(2, fs.syncs.get() - syncsBefore, "one fsync for the first append, one for the rest");
            } finally {
                pool.shutdownNow();
            }
            assertEquals(2, meta.getTerm());
            assertEquals(5, logs.get(2).getLastLogIndex());
            for (LogStorage log : logs) {
                log.shutdown();
            }
            meta.shutdown();
        }
    }
}
