package io.varve.jmh;

import io.varve.jmh.data.Keys;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.SplittableRandom;

/**
 * Per-thread benchmark state: a random stream seeded by the thread's index (so runs are repeatable and
 * threads do not share a generator), and reusable buffers for reads.
 */
@State(Scope.Thread)
public class Worker {

    public SplittableRandom random;
    /** Reused for reads only: engines copy read keys, while some keep references to written ones. */
    public final byte[] key = new byte[Keys.KEY_SIZE];
    public final byte[] keyOut = new byte[Keys.KEY_SIZE];
    /** Large enough for the biggest value size in the suite (4096). */
    public final byte[] valueOut = new byte[8192];

    @Setup(Level.Trial)
    public void seed(ThreadParams thread) {
        random = new SplittableRandom(0x5eed_1000L + thread.getThreadIndex());
    }
}
