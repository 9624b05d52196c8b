package io.varve.raftlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.varve.base.fs.FaultInjectingFileSystem;
import io.varve.base.fs.MemFileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fails the N-th file-system operation of a small workload (writes, purges, reads, a reopen), for every N,
 * once or for good. The error must reach the caller; after a failed write or purge the engine must refuse
 * writes with that error as the cause; and reopening on the healed file system after a crash must yield a
 * prefix of the attempted batches that contains every acknowledged (synced) one.
 */
class IoFaultTest {
    private static final Path DIR = Path.of("/faults");

    /** The workload: 36 batches over 4 groups with overwrites, compactions and state, purges every 9. */
    private static List<List<Op>> batches() {
        Random random = new Random(42);
        RefModel model = new RefModel();
        List<List<Op>> out = new ArrayList<>();
        for (int i = 0; i < 36; i++) {
            int g = i % 4;
            long last = model.lastIndex(g);
            long first = last < 0 ? 1 : (i % 7 == 3 ? Math.max(1, last - 2) : last + 1);
            List<byte[]> entries = new ArrayList<>();
            for (int k = 0; k < 3 + random.nextInt(4); k++) {
                entries.add(Workload.payload(i, first + k, 100 + random.nextInt(900)));
            }
            List<Op> ops = new ArrayList<>(List.of(new Op.Append(g, first, entries),
                    new Op.Put(g, Workload.KEYS.get(0), Workload.payload(i, 0, 12))));
            if (i % 5 == 4) {
                ops.add(new Op.Compact((g + 1) % 4, Math.max(0, model.lastIndex((g + 1) % 4) - 2)));
            }
            model.apply(ops);
            out.add(ops);
        }
        return out;
    }

    private static RaftLogOptions options(FaultInjectingFileSystem fs) {
        return RaftLogOptions.defaults().withFileSystem(fs).withTargetFileSize(8 << 10).withPurgeThreshold(16 << 10)
                .withPurgeRewriteMaxEntries(8).withRewriteGarbageRatio(0.2);
    }

    /** Outcome of one run: how many batches were attempted and acknowledged, and the first error. */
    private record Run(int attempted, int acknowledged, Throwable error) {
    }

    private static Run run(FaultInjectingFileSystem fs, List<List<Op>> batches) {
        int attempted = 0;
        int acknowledged = 0;
        Throwable error = null;
        RaftLogEngine engine = null;
        try {
            engine = RaftLogEngine.open(DIR, options(fs));
            for (int i = 0; i < batches.size(); i++) {
                if (i % 9 == 8) {
                    engine.purgeExpiredFiles();
                }
                if (i == 20) {
                    RaftLogEngine closing = engine;
                    engine = null;
                    closing.close();
                    engine = RaftLogEngine.open(DIR, options(fs));
                }
                attempted = i + 1;
                engine.write(Op.toBatch(batches.get(i)), true);
                acknowledged = i + 1;
                if (i % 6 == 5) {
                    long g = i % 4;
                    engine.entries(g, engine.firstIndex(g).getAsLong(), engine.lastIndex(g).getAsLong() + 1, 1 << 20);
                }
            }
            engine.purgeExpiredFiles();
            RaftLogEngine closing = engine;
            engine = null;
            closing.close();
        } catch (IOException | RuntimeException e) {
            error = e;
            if (engine != null) {
                RaftLogEngine failed = engine;
                try {
                    IOException refused = assertThrows(IOException.class,
                            () -> failed.write(Op.toBatch(List.of(new Op.Clean(99))), true));
                    assertSame(e, refused.getCause(), "refusal names the original error");
                } catch (IllegalStateException closedMeanwhile) {
                    // the error came from close(); the engine is closed, which also refuses writes
                } catch (AssertionError notRefused) {
                    // only a failed read leaves the engine writable
                    assertTrue(isRead(e), "engine still accepts writes after " + e);
                }
                try {
                    failed.close();
                } catch (IOException | RuntimeException ignored) {
                    // closing a failed engine may fail again; it must still release the directory
                }
            }
        }
        return new Run(attempted, acknowledged, error);
    }

    private static boolean isRead(Throwable e) {
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getMethodName().equals("entries")) {
                return true;
            }
        }
        return false;
    }

    @ParameterizedTest(name = "fail forever: {0}")
    @ValueSource(booleans = {false, true})
    void everyFailureSurfacesAndRecoveryYieldsAConsistentPrefix(boolean forever) throws Exception {
        List<List<Op>> batches = batches();
        FaultInjectingFileSystem clean = new FaultInjectingFileSystem(new MemFileSystem());
        Run baseline = run(clean, batches);
        assertEquals(null, baseline.error());
        long operations = clean.operationCount();
        assertTrue(operations > 200, "workload too small: " + operations);

        List<RefModel> prefixes = new ArrayList<>();
        RefModel m = new RefModel();
        prefixes.add(m.copy());
        for (List<Op> b : batches) {
            m.apply(b);
            prefixes.add(m.copy());
        }
        for (long n = 1; n <= operations; n++) {
            MemFileSystem mem = new MemFileSystem();
            FaultInjectingFileSystem fs = new FaultInjectingFileSystem(mem);
            fs.failAt(n, forever);
            Run r = run(fs, batches);
            assertNotNull(r.error(), "failure at operation " + n + " did not reach the caller");
            assertTrue(causedByInjection(r.error()), "operation " + n + ": unexpected " + r.error());

            fs.heal();
            mem.crash();
            try (RaftLogEngine engine = RaftLogEngine.open(DIR, options(fs))) {
                RefModel actual = RefModel.readFrom(engine, Workload.KEYS);
                boolean found = false;
                for (int k = r.acknowledged(); k <= r.attempted() && !found; k++) {
                    found = prefixes.get(k).equals(actual);
                }
                if (!found) {
                    fail("failure at operation " + n + " (" + r.error() + "): recovered " + actual
                            + " is no prefix between " + r.acknowledged() + " and " + r.attempted() + " batches");
                }
                // The healed engine takes writes again.
                engine.write(Op.toBatch(List.of(new Op.Put(77, Workload.KEYS.get(1), new byte[] {1}))), true);
            }
        }
    }

    private static boolean causedByInjection(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof FaultInjectingFileSystem.InjectedIOException) {
                return true;
            }
        }
        return false;
    }
}
