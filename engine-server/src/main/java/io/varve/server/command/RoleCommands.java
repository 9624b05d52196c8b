package io.varve.server.command;

import io.varve.server.resp.RedisError;
import io.varve.server.resp.Reply;

/**
 * ROLE, WAIT and LOLWUT as a single Redis master without replicas answers them: ROLE says master with no
 * replicas, WAIT has no replica to wait for and answers 0 at once, LOLWUT prints the version.
 */
final class RoleCommands {

    private RoleCommands() {
    }

    static void register(CommandTable.Builder b) {
        b.add("role", 1, "noscript loading stale fast", RoleCommands::role);
        b.add("wait", 3, "noscript", RoleCommands::waitForReplicas);
        b.add("lolwut", -1, "readonly fast", RoleCommands::lolwut);
    }

    private static void role(CommandCall c) {
        Reply r = c.reply();
        r.arrayHeader(3);
        r.bulk("master");
        r.integer(0);
        r.arrayHeader(0);
    }

    private static void waitForReplicas(CommandCall c) {
        Long replicas = Args.tryParseLong(c.arg(1));
        if (replicas == null) {
            throw new RedisError("ERR value is not an integer or out of range");
        }
        Long timeout = Args.tryParseLong(c.arg(2));
        if (timeout == null) {
            throw new RedisError("ERR timeout is not an integer or out of range");
        }
        if (timeout < 0) {
            throw new RedisError("ERR timeout is negative");
        }
        c.reply().integer(0); // no replica exists to acknowledge anything
    }

    private static void lolwut(CommandCall c) {
        for (int i = 1; i < c.argCount(); i++) {
            if (c.argIs(i, "version") && i + 1 < c.argCount()) {
                if (Args.tryParseLong(c.arg(++i)) == null) {
                    throw new RedisError("ERR value is not an integer or out of range");
                }
            }
        }
        c.reply().verbatim("Varve ver. " + c.server().version() + "\n");
    }
}
