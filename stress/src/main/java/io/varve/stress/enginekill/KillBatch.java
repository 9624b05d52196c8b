package io.varve.stress.enginekill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One atomic write of a child's writer thread, as the child reports it and the parent replays it on its model:
 * a {@code WriteBatch}, a transaction committed whole, or one external table ingested into a single family.
 * Operations apply in order; every put writes the batch's version, every merge links the batch's version to
 * the key's hash chain ({@link KillMerge}).
 *
 * @param route  how the write reaches the database
 * @param synced whether it was written with {@code WriteOptions.SYNC} (an ingestion always is durable)
 */
record KillBatch(Route route, boolean synced, List<Op> ops) {

    /** How a write reaches the database; each is one atomic write, whole or absent after a crash. */
    enum Route {
        BATCH('B'), INGEST('I'), OPTIMISTIC_TRANSACTION('O'), PESSIMISTIC_TRANSACTION('P');

        private final char code;

        Route(char code) {
            this.code = code;
        }

        static Route of(String code) {
            for (Route r : values()) {
                if (code.length() == 1 && r.code == code.charAt(0)) {
                    return r;
                }
            }
            throw new IllegalArgumentException("unknown route " + code);
        }
    }

    /** A put, delete, merge or range delete ({@code [index, end)}) of one thread's keys in one family. */
    record Op(char kind, int family, int index, int end) {
        static Op put(int family, int index) {
            return new Op('P', family, index, 0);
        }

        static Op delete(int family, int index) {
            return new Op('D', family, index, 0);
        }

        static Op merge(int family, int index) {
            return new Op('M', family, index, 0);
        }

        static Op deleteRange(int family, int from, int to) {
            return new Op('R', family, from, to);
        }
    }

    boolean ingest() {
        return route == Route.INGEST;
    }

    /** Applies the batch, written with {@code version}, to one thread's state. */
    void applyTo(long[][] state, long version) {
        for (Op op : ops) {
            apply(op, state, version);
        }
    }

    /** Applies one operation of a batch written with {@code version} to one thread's state. */
    static void apply(Op op, long[][] state, long version) {
        switch (op.kind()) {
            case 'P' -> state[op.family()][op.index()] = version;
            case 'D' -> state[op.family()][op.index()] = KillSpace.ABSENT;
            case 'M' -> state[op.family()][op.index()] = KillMerge.chain(state[op.family()][op.index()], version);
            case 'R' -> Arrays.fill(state[op.family()], op.index(), op.end(), KillSpace.ABSENT);
            default -> throw new IllegalStateException("unknown operation " + op);
        }
    }

    /**
     * {@code <route> <0|1> <op>,<op>...}, route {@code B}, {@code I}, {@code O} or {@code P}, each op
     * {@code P.f.k}, {@code D.f.k}, {@code M.f.k} or {@code R.f.from.to}.
     */
    String encode() {
        StringBuilder b = new StringBuilder().append(route.code).append(' ').append(synced ? 1 : 0).append(' ');
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
                case "M" -> {
                    if (index == KillSpace.MARKER) {
                        throw new IllegalArgumentException("a merge of a marker: " + o);
                    }
                    yield Op.merge(family, index);
                }
                case "R" -> Op.deleteRange(family, index, Integer.parseInt(p[3]));
                default -> throw new IllegalArgumentException("unknown operation " + o);
            });
        }
        return new KillBatch(Route.of(f[0]), f[1].equals("1"), ops);
    }
}
