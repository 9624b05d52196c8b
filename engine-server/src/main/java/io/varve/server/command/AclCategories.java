package io.varve.server.command;

import java.util.List;

/** Redis 7's ACL command categories, in the order ACL CAT lists them. */
final class AclCategories {

    static final List<String> ALL = List.of("keyspace", "read", "write", "set", "sortedset", "list", "hash",
            "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");

    private AclCategories() {
    }

    static boolean exists(String category) {
        return category.equals("all") || ALL.contains(category);
    }
}
