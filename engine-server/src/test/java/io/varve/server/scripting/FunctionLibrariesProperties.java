package io.varve.server.scripting;

import io.varve.server.resp.RedisError;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * FUNCTION LOAD [REPLACE], DELETE and FLUSH against a model (a map from library to its function names): after
 * every step the registry holds exactly the model's libraries and every function resolves to the library
 * the model says, and each refused load (an existing library without REPLACE, a function another library
 * holds) changes nothing.
 */
class FunctionLibrariesProperties {

    private static final int LIBRARIES = 3;
    private static final int FUNCTIONS = 4;

    @Property(tries = 60)
    void librariesBehaveLikeTheModel(@ForAll @Size(max = 30) List<@IntRange(min = 0, max = 9999) Integer> steps) {
        FunctionLibraries registry = new Scripting().functions();
        Map<String, Set<String>> model = new TreeMap<>();
        int n = 0;
        for (int step : steps) {
            n++;
            String lib = "lib" + (step % LIBRARIES);
            int kind = (step / LIBRARIES) % 10;
            if (kind < 7) {
                boolean replace = kind >= 3;
                Set<String> functions = new LinkedHashSet<>();
                int mask = 1 + (step / 30) % ((1 << FUNCTIONS) - 1);
                for (int f = 0; f < FUNCTIONS; f++) {
                    if ((mask & (1 << f)) != 0) {
                        functions.add("f" + f);
                    }
                }
                String expected = expectedLoad(model, lib, functions, replace);
                String got;
                try {
                    got = registry.load(code(lib, functions), replace);
                } catch (RedisError e) {
                    got = e.getMessage();
                }
                assertEquals(expected, got, "step " + n + ": load " + lib + " " + functions + (replace ? " REPLACE" : ""));
                if (expected.equals(lib)) {
                    model.put(lib, functions);
                }
            } else if (kind < 9) {
                assertEquals(model.remove(lib) != null, registry.delete(lib), "step " + n + ": delete " + lib);
            } else {
                registry.flush();
                model.clear();
            }
            assertSame(model, registry, n);
        }
    }

    private static String expectedLoad(Map<String, Set<String>> model, String lib, Set<String> functions, boolean replace) {
        if (model.containsKey(lib) && !replace) {
            return "ERR Library '" + lib + "' already exists";
        }
        for (String f : functions) {
            for (Map.Entry<String, Set<String>> other : model.entrySet()) {
                if (!other.getKey().equals(lib) && other.getValue().contains(f)) {
                    return "ERR Function " + f + " already exists";
                }
            }
        }
        return lib;
    }

    private static byte[] code(String lib, Set<String> functions) {
        StringBuilder b = new StringBuilder("#!lua name=" + lib + "\n");
        for (String f : functions) {
            b.append("redis.register_function('").append(f).append("', function() return '").append(lib).append("' end)\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void assertSame(Map<String, Set<String>> model, FunctionLibraries registry, int step) {
        Map<String, List<String>> actual = new TreeMap<>();
        for (FunctionLibraries.Library l : registry.libraries()) {
            actual.put(l.name(), new ArrayList<>(l.functions().keySet()));
        }
        Map<String, List<String>> expected = new TreeMap<>();
        model.forEach((lib, fs) -> expected.put(lib, new ArrayList<>(fs)));
        assertEquals(expected, actual, "libraries after step " + step);
        Map<String, String> owners = new HashMap<>();
        model.forEach((lib, fs) -> fs.forEach(f -> owners.put(f, lib)));
        for (int f = 0; f < FUNCTIONS; f++) {
            FunctionLibraries.Function found = registry.function("f" + f);
            assertEquals(owners.get("f" + f), found == null ? null : found.library(), "owner of f" + f + " after step " + step);
        }
    }
}
