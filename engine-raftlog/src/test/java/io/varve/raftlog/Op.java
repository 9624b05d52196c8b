package io.varve.raftlog;

import java.util.List;

/** One operation of a test batch, applied both to the engine (through {@link LogBatch}) and to {@link RefModel}. */
sealed interface Op {
    long group();

    record Append(long group, long first, List<byte[]> entries) implements Op {
    }

    record Put(long group, byte[] key, byte[] value) implements Op {
    }

    record Delete(long group, byte[] key) implements Op {
    }

    record Compact(long group, long index) implements Op {
    }

    record Clean(long group) implements Op {
    }

    static LogBatch toBatch(List<Op> ops) {
        LogBatch batch = new LogBatch();
        for (Op op : ops) {
            switch (op) {
                case Append a -> batch.addEntries(a.group(), a.first(), a.entries());
                case Put p -> batch.put(p.group(), p.key(), p.value());
                case Delete d -> batch.delete(d.group(), d.key());
                case Compact c -> batch.compactTo(c.group(), c.index());
                case Clean c -> batch.clean(c.group());
            }
        }
        return batch;
    }
}
