package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

/**
 * A failed script's error reply, worded as Redis 7 words it: an error a command raised through
 * {@code redis.call} (or a table with an {@code err} field passed to {@code error}) keeps its own text, a Lua
 * runtime error is prefixed with {@code ERR}, and both end with where the script failed
 * ({@code script: <name>, on @user_script:<line>.}).
 */
final class ScriptErrors {

    private ScriptErrors() {
    }

    /** An {@code err} field as a reply: its text without the leading '-' Redis's error_reply may add. */
    static String replyText(String err) {
        String text = err.startsWith("-") ? err.substring(1) : err;
        return text.isEmpty() ? "ERR" : text;
    }

    /** The reply for a script that stopped with {@code e}. */
    static RedisError of(LuaError e, String scriptName, String source) {
        LuaValue object = e.getMessageObject();
        String where = e instanceof CommandError c ? c.location() : location(e); // "user_script:3", or null
        String message;
        if (object != null && object.istable() && object.get("err").isstring()) {
            message = replyText(object.get("err").tojstring());
        } else {
            String text = object != null && object.isstring() ? object.tojstring() : null;
            if (text == null) {
                text = "execution failure";
            }
            text = text.strip();
            if (where != null && text.startsWith("@" + where + " ")) {
                text = text.substring(where.length() + 2); // LuaJ's own "@chunk:line " in front of the text
            }
            message = "ERR " + (where == null || text.startsWith(where) ? "" : where + ": ") + lua51Words(text);
        }
        if (where != null) {
            message += " script: " + scriptName + ", on " + source + where.substring(where.lastIndexOf(':')) + ".";
        }
        return new RedisError(message);
    }

    /** LuaJ's "attempt to call nil" in Lua 5.1's words, "attempt to call a nil value", which clients match. */
    private static String lua51Words(String text) {
        return text.replaceFirst("attempt to call (nil|boolean|number|string|table|userdata)$", "attempt to call a $1 value");
    }

    /**
     * Where the error was raised, from the "chunk:line" LuaJ puts in front of the message it reports, with
     * the chunk's '@' dropped as Lua 5.1 drops it; null if LuaJ noted no line.
     */
    private static String location(LuaError e) {
        String m = e.getMessage();
        if (m == null) {
            return null;
        }
        int space = m.indexOf(' ');
        String first = space < 0 ? m : m.substring(0, space);
        int colon = first.lastIndexOf(':');
        if (colon < 0 || colon == first.length() - 1
                || !first.substring(colon + 1).chars().allMatch(Character::isDigit)) {
            return null;
        }
        return first.startsWith("@") ? first.substring(1) : first;
    }
}
