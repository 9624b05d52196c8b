package io.varve.stress.enginekill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One atomic write of a child's writer thread, as the child reports it and the parent replays it on its model:
 * a {@code WriteBatch} or, when {@code ingest}, one external table ingested into a single family. Operations
 * apply in order; every put writes the batch's version.
 *
 * @param ingest whether the write is an ingestion rather than a batch
 * @param synced whether it was written with {@code WriteOptions.SYNC} (an ingestion always is durable)
 */
record KillBatch(boolean ingest, boolean synced, List<Op> ops) {

    /** A put, delete or range delete ({@code [index, end)}) of one thread's keys in one family. */
    record Op(char kind, int family, int index, int end) {
        static Op put(int family, int index) {
            return new Op('P', family, index, 0);
        }

        static Op delete(int family, int index) {
            return new Op('D', family, index, 0);
        }

        static Op deleteRange(int family, int from, int to) {
            return new Op('R', family, from, to);
        }
    }

    /** Applies the batch, written with {@code version}, to one thread's state. */
    void applyTo(long[][] state, long version) {
        for (Op op : ops) {
            switch (op.kind()) {
                case 'P' -> state[op.family()][op.index()] = version;
                case 'D' -> state[op.family()][op.index()] = KillSpace.ABSENT;
                case 'R' -> Arrays.fill(state[op.family()], op.index(), op.end(), KillSpace.ABSENT);
                default -> throw new IllegalStateException("unknown operation " + op);
            }
        }
    }

    /** {@code <B|I> <0|1> <op>,<op>...}, each op {@code P.f.k}, {@code D.f.k} or {@code R.f.from.to}. */
    String encode() {
        StringBuilder b = new StringBuilder().append(ingest ? 'I' : 'B').append(' ').append(synced ? 1 : 0).append(' ');
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (i > 0) {
                b.append(',');
            }
            b.append(op.kind()).append('.').append(op.family()).append('.').append(op.index());
            if (op.kind() == 'R') {
                b.append('.').append(op.end());
            }
        }
        return b.toString();
    }

    static KillBatch decode(String text) {
        String[] f = text.split(" ", 3);
        List<Op> ops = new ArrayList<>();
        for (String o : f[2].split(",")) {
            String[] p = o.split("\\.");
            int family = Integer.parseInt(p[1]);
            int index = Integer.parseInt(p[2]);
            if (family < 0 || family >= KillSpace.FAMILIES.size() || index < 0 || index > KillSpace.MARKER) {
                throw new IllegalArgumentException("operation out of the key space: " + o);
            }
            ops.add(switch (p[0]) {
                case "P" -> Op.put(family, index);
                case "D" -> Op.delete(family, index);
                case "R" -> Op.deleteRange(family, index, Integer.parseInt(p[3]));
                default -> throw new IllegalArgumentException("unknown operation " + o);
            });
        }
        return new KillBatch(f[0].equals("I"), f[1].equals("1"), ops);
    }
}
