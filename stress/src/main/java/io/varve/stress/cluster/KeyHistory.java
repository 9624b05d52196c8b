package io.varve.stress.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One key of the cluster workload and what may be in it: the state judged at the end of the last cycle (the
 * base) and this cycle's writes, each a unique token, acknowledged or of unknown outcome (failed, timed out,
 * cut off by the kill: it may or may not have taken effect). One worker owns the key and writes it in order.
 *
 * <p>A state is read as a list of tokens ({@link ReplicaReader}): a string's value, a hash's fields, a list's
 * elements, a set's or a sorted set's members, a transaction pair's log. The judgement is the campaign's
 * oracle: every acknowledged write is present, nothing appears that no one wrote, nothing appears twice,
 * and an ordered kind (list, transaction log) keeps the base and then the writes in the order they were sent.
 * A string holds the last acknowledged value or a later write of unknown outcome.
 */
final class KeyHistory {

    /** The data types the workload writes; {@code TX} is a list and a counter written in one MULTI/EXEC. */
    enum Kind { STRING, HASH, LIST, SET, ZSET, TX }

    /** One write: its token and whether the client saw it acknowledged. */
    record Write(String token, boolean acknowledged) {
    }

    private final String key;
    private final Kind kind;
    private List<String> base = List.of();
    private final List<Write> writes = new ArrayList<>();

    KeyHistory(String key, Kind kind) {
        this.key = key;
        this.kind = kind;
    }

    /** The key; for {@link Kind#TX} the hash tag both of its keys share. */
    String key() {
        return key;
    }

    Kind kind() {
        return kind;
    }

    void record(String token, boolean acknowledged) {
        writes.add(new Write(token, acknowledged));
    }

    List<Write> writes() {
        return List.copyOf(writes);
    }

    /** Null when {@code actual} is a state this key may be in, else why not. */
    String judge(List<String> actual) {
        Set<String> seen = new HashSet<>();
        for (String t : actual) {
            if (!seen.add(t)) {
                return key + ": " + t + " appears twice in " + actual;
            }
        }
        return switch (kind) {
            case STRING -> judgeString(actual);
            case LIST, TX -> judgeOrdered(actual);
            case HASH, SET, ZSET -> judgeUnordered(actual);
        };
    }

    /** The judged state becomes the base of the next cycle. */
    void settle(List<String> actual) {
        base = List.copyOf(actual);
        writes.clear();
    }

    private String judgeString(List<String> actual) {
        int lastAcked = -1;
        for (int i = 0; i < writes.size(); i++) {
            if (writes.get(i).acknowledged()) {
                lastAcked = i;
            }
        }
        Set<String> admissible = new HashSet<>();
        if (lastAcked >= 0) {
            admissible.add(writes.get(lastAcked).token());
        } else {
            admissible.add(base.isEmpty() ? null : base.getFirst());
        }
        for (int i = lastAcked + 1; i < writes.size(); i++) {
            admissible.add(writes.get(i).token());
        }
        String value = actual.isEmpty() ? null : actual.getFirst();
        if (actual.size() > 1 || !admissible.contains(value)) {
            return key + ": holds " + actual + ", not " + (lastAcked >= 0 ? "the last acknowledged value "
                    + writes.get(lastAcked).token() : "its earlier value " + base) + " or a later unacknowledged one";
        }
        return null;
    }

    private String judgeOrdered(List<String> actual) {
        if (actual.size() < base.size() || !actual.subList(0, base.size()).equals(base)) {
            return key + ": lost part of what it held after the last cycle: " + base + " became " + actual;
        }
        int w = 0;
        for (String t : actual.subList(base.size(), actual.size())) {
            while (w < writes.size() && !writes.get(w).token().equals(t)) {
                if (writes.get(w).acknowledged()) {
                    return key + ": acknowledged " + writes.get(w).token() + " is missing before " + t;
                }
                w++;
            }
            if (w == writes.size()) {
                return key + ": holds " + t + ", which no one wrote here, or out of the order sent";
            }
            w++;
        }
        for (; w < writes.size(); w++) {
            if (writes.get(w).acknowledged()) {
                return key + ": acknowledged " + writes.get(w).token() + " is missing";
            }
        }
        return null;
    }

    private String judgeUnordered(List<String> actual) {
        Set<String> held = new HashSet<>(actual);
        Set<String> written = new HashSet<>(base);
        for (String t : base) {
            if (!held.contains(t)) {
                return key + ": lost " + t + ", which it held after the last cycle";
            }
        }
        for (Write write : writes) {
            written.add(write.token());
            if (write.acknowledged() && !held.contains(write.token())) {
                return key + ": acknowledged " + write.token() + " is missing";
            }
        }
        for (String t : actual) {
            if (!written.contains(t)) {
                return key + ": holds " + t + ", which no one wrote here";
            }
        }
        return null;
    }
}
