package io.varve.server.command;

import io.varve.server.resp.Reply;
import io.varve.server.types.Scored;

import java.util.List;

/** Replies of sorted-set members with their scores, in the shapes Redis gives them. */
final class ScoredReplies {

    private ScoredReplies() {
    }

    /**
     * Replies a list of members as Redis does: without scores an array of members; with scores, in RESP2 a
     * flat array alternating member and score (a bulk string), in RESP3 an array of [member, double] pairs.
     */
    static void reply(Reply r, List<Scored> items, boolean withScores) {
        boolean pairs = withScores && r.resp3();
        r.arrayHeader(withScores && !pairs ? items.size() * 2L : items.size());
        for (Scored s : items) {
            if (pairs) {
                r.arrayHeader(2);
            }
            r.bulk(s.member());
            if (withScores) {
                r.doubleValue(s.score());
            }
        }
    }

    /** Like {@link #reply} with scores, but nested [member, score] pairs in RESP2 too (ZMPOP's shape). */
    static void replyPairs(Reply r, List<Scored> items) {
        r.arrayHeader(items.size());
        for (Scored s : items) {
            r.arrayHeader(2);
            r.bulk(s.member());
            r.doubleValue(s.score());
        }
    }
}
