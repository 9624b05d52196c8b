package io.varve.server.command;

import java.util.List;
import java.util.Map;

/**
 * The loop every per-type model property of the server runs: a program of commands against an
 * {@link InProcessServer} and the type's model. The steps that are not commands are the same for every
 * type and live here — {@code ADVANCE ms} moves the server's clock and expires the model's keys whose
 * deadline passed, {@code RESTART} reopens the server from its files, {@code FLUSH} writes the memtables
 * out, {@code COMPACT} compacts everything — and after every step the model checks each of its keys.
 */
final class ModelRun {

    /** One type's model: how it runs a command step and how it compares the server with itself. */
    interface Model {

        /** Forgets {@code key}, whose deadline has passed. */
        void expire(String key);

        /** Sends {@code op} (a command) to the server and asserts that its reply is the model's. */
        void step(InProcessServer s, String[] op, String where) throws Exception;

        /** Asserts that the server holds what the model holds, after any step. */
        void check(InProcessServer s, String where) throws Exception;

        /** Asserts what a full compaction must have left; nothing by default. */
        default void afterCompaction(InProcessServer s, String where) throws Exception {
        }
    }

    private ModelRun() {
    }

    /**
     * Runs {@code program} against a fresh server. {@code expiry} is the model's map of deadlines (epoch
     * milliseconds by key), which its command steps keep up to date. Returns how many restarts ran.
     */
    static int run(List<String[]> program, Map<String, Long> expiry, Model model) throws Exception {
        return run(program, expiry, model, false);
    }

    /** {@link #run(List, Map, Model)} with the keyspace in the slotted layout of a cluster node, or not. */
    static int run(List<String[]> program, Map<String, Long> expiry, Model model, boolean slotted)
            throws Exception {
        int restarts = 0;
        try (InProcessServer s = InProcessServer.of(slotted)) {
            int step = 0;
            for (String[] op : program) {
                step++;
                String where = "step " + step + " " + String.join(" ", op);
                switch (op[0]) {
                    case "ADVANCE" -> {
                        long now = s.clock.addAndGet(Long.parseLong(op[1]));
                        expiry.entrySet().removeIf(e -> {
                            boolean expired = e.getValue() <= now;
                            if (expired) {
                                model.expire(e.getKey());
                            }
                            return expired;
                        });
                    }
                    case "RESTART" -> {
                        s.restart();
                        restarts++;
                    }
                    case "FLUSH" -> s.db.flush();
                    case "COMPACT" -> {
                        s.db.compactRange(null, null);
                        model.afterCompaction(s, where);
                    }
                    default -> model.step(s, op, where);
                }
                model.check(s, where);
            }
        }
        return restarts;
    }
}
