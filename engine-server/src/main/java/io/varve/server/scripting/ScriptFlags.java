package io.varve.server.scripting;

import io.varve.server.resp.RedisError;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The flags a script declares in its shebang line ({@code #!lua flags=no-writes,allow-stale}) or a function
 * in {@code redis.register_function}: Redis 7's names. A script without a shebang has none of them and runs
 * the way Redis 6 scripts did (it may write; the commands it calls decide).
 */
public enum ScriptFlags {
    NO_WRITES("no-writes"),
    ALLOW_OOM("allow-oom"),
    ALLOW_STALE("allow-stale"),
    NO_CLUSTER("no-cluster"),
    ALLOW_CROSS_SLOT_KEYS("allow-cross-slot-keys");

    private final String wireName;

    ScriptFlags(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    static ScriptFlags named(String name) {
        for (ScriptFlags f : values()) {
            if (f.wireName.equals(name)) {
                return f;
            }
        }
        return null;
    }

    /** A shebang line and what follows it. */
    record Shebang(Set<ScriptFlags> flags, String libraryName, int bodyStart) {
    }

    /** Whether {@code body} starts with a shebang line ({@code #!}). */
    static boolean hasShebang(byte[] body) {
        return body.length >= 2 && body[0] == '#' && body[1] == '!';
    }

    /**
     * Parses the shebang of an EVAL script or a function library: {@code #!<engine> [name=<n>] [flags=a,b]}.
     *
     * @param library whether it heads a FUNCTION LOAD library (which must name itself and takes no flags)
     */
    static Shebang parse(byte[] body, boolean library) {
        int end = 0;
        while (end < body.length && body[end] != '\n') {
            end++;
        }
        String line = new String(body, 2, end - 2, StandardCharsets.UTF_8).stripTrailing();
        List<String> parts = List.of(line.split(" +", -1));
        String engine = parts.get(0);
        if (!engine.equalsIgnoreCase("lua")) {
            throw new RedisError(library ? "ERR Engine '" + engine + "' not found"
                    : "ERR Unexpected engine in script shebang: " + engine);
        }
        Set<ScriptFlags> flags = EnumSet.noneOf(ScriptFlags.class);
        String name = null;
        for (String part : parts.subList(1, parts.size())) {
            if (library && part.startsWith("name=")) {
                if (name != null) {
                    throw new RedisError("ERR Invalid metadata value, name argument was given multiple times");
                }
                name = part.substring("name=".length());
                if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
                    name = name.substring(1, name.length() - 1);
                }
            } else if (!library && part.startsWith("flags=")) {
                String list = part.substring("flags=".length());
                for (String f : list.isEmpty() ? new String[0] : list.split(",")) {
                    ScriptFlags flag = named(f);
                    if (flag == null) {
                        throw new RedisError("ERR Unexpected flag in script shebang: " + f);
                    }
                    flags.add(flag);
                }
            } else {
                throw new RedisError(library ? "ERR Invalid metadata value given: " + part
                        : "ERR Unknown lua shebang option: " + part);
            }
        }
        if (library && name == null) {
            throw new RedisError("ERR Library name was not given");
        }
        return new Shebang(flags, name, Math.min(end + 1, body.length));
    }
}
