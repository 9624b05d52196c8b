package io.varve.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

/**
 * The error {@code redis.call} raises for a command's error reply: its message is the {@code {err=...}}
 * table, and LuaJ notes where the script was when it was raised ({@link #location}), which a table message
 * cannot carry in its text.
 */
final class CommandError extends LuaError {

    CommandError(LuaValue errorTable) {
        super(errorTable);
    }

    /** "user_script:3", or null if LuaJ noted no position. */
    String location() {
        if (fileline == null) {
            return null;
        }
        String where = fileline.startsWith("@") ? fileline.substring(1) : fileline;
        return where.endsWith(":?") ? null : where;
    }
}
