package io.varve.stress.raftlog;

import io.varve.raftlog.RaftLogEngine;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The raft-log kill campaign's child: writes batches to many groups until it is killed, and reports on
 * stdout, flushed line by line, every batch before it is written ({@code W <n> <synced> <ops>}) and after the
 * write returned ({@code A <n>}). Batches append (often overwriting a few entries of the tail, as a new Raft
 * leader does), compact, put and delete state; about a third are synced. Every 150 batches a purge (which
 * rewrites and recycles files) starts on another thread, racing the writes.
 *
 * <p>Arguments: directory, seed, cycle (which makes versions unique across cycles).
 */
public final class RaftLogChild {

    private RaftLogChild() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Random random = new Random(Long.parseLong(args[1]));
        long cycle = Long.parseLong(args[2]);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        ExecutorService purger = Executors.newSingleThreadExecutor();
        Future<?> purge = null;
        try (RaftLogEngine engine = RaftLogEngine.open(dir, RaftLogStressOptions.options())) {
            out.println("READY");
            out.flush();
            for (long n = 0; ; n++) {
                List<LogOp> batch = nextBatch(engine, random, (cycle << 32) | n);
                boolean sync = random.nextInt(3) == 0;
                out.println("W " + n + " " + (sync ? 1 : 0) + " " + LogOp.encodeBatch(batch));
                out.flush();
                engine.write(LogOp.toBatch(batch), sync);
                out.println("A " + n);
                out.flush();
                if (n % 150 == 149 && (purge == null || purge.isDone())) {
                    if (purge != null) {
                        purge.get(); // a failed purge fails the child
                    }
                    purge = purger.submit(() -> {
                        engine.purgeExpiredFiles();
                        return null;
                    });
                }
            }
        } finally {
            purger.shutdownNow();
        }
    }

    /** One to three operations on distinct groups. */
    static List<LogOp> nextBatch(RaftLogEngine engine, Random random, long version) {
        List<LogOp> ops = new ArrayList<>();
        Set<Long> used = new HashSet<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            long g = random.nextInt(RaftLogStressOptions.GROUPS);
            if (!used.add(g)) {
                continue;
            }
            long first = engine.firstIndex(g).orElse(-1);
            long last = engine.lastIndex(g).orElse(-1);
            int kind = random.nextInt(100);
            if (kind < 55 || last < 0) {
                ops.add(new LogOp.Append(g, last < 0 ? 1 : last + 1, 1 + random.nextInt(8), version));
            } else if (kind < 67) {
                // A new leader overwrites the uncommitted tail; never below the first index.
                long from = Math.max(first + 1, last - random.nextInt(6));
                ops.add(new LogOp.Append(g, Math.min(from, last + 1), 1 + random.nextInt(8), version));
            } else if (kind < 75) {
                if (last - first > 40) {
                    ops.add(new LogOp.Compact(g, first + 1 + random.nextInt((int) (last - first - 20))));
                }
            } else if (kind < 95) {
                ops.add(new LogOp.Put(g, LogOp.KEYS.get(random.nextInt(LogOp.KEYS.size())), version));
            } else {
                ops.add(new LogOp.Delete(g, LogOp.KEYS.get(random.nextInt(LogOp.KEYS.size()))));
            }
        }
        if (ops.isEmpty()) {
            ops.add(new LogOp.Put(0, "hs", version));
        }
        return ops;
    }
}
