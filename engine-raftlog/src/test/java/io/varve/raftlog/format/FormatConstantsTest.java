package io.varve.raftlog.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "Constants" table of docs/raftlog-format.md lists exactly the public int constants of the two format
 * classes, with their values: the document and the code cannot drift apart.
 */
class FormatConstantsTest {
    private static final Path DOC = Path.of("..", "docs", "raftlog-format.md");

    @Test
    void constantsTableMatchesTheFormatClasses() throws Exception {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("\n### Constants");
        assertTrue(start >= 0, "no Constants section in " + DOC.toAbsolutePath());
        int end = doc.indexOf("\n#", start + 1);
        String table = doc.substring(start, end < 0 ? doc.length() : end);
        Map<String, Long> documented = new HashMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `([A-Z0-9_]+)` \\| (0x[0-9A-Fa-f]+|\\d+) \\| `(\\w+)` \\|$")
                .matcher(table);
        while (row.find()) {
            String v = row.group(2);
            long value = v.startsWith("0x") ? Long.parseLong(v.substring(2), 16) : Long.parseLong(v);
            String name = row.group(3) + "." + row.group(1);
            assertEquals(null, documented.put(name, value), "listed twice: " + name);
        }
        int checked = 0;
        for (Class<?> c : new Class<?>[] {BatchFormat.class, LogFileFormat.class}) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isPublic(m) && Modifier.isStatic(m) && f.getType() == int.class) {
                    String name = c.getSimpleName() + "." + f.getName();
                    assertTrue(documented.containsKey(name), name + " is missing from the Constants table");
                    assertEquals(documented.get(name), (long) f.getInt(null), name);
                    checked++;
                }
            }
        }
        assertEquals(documented.size(), checked, "the table lists constants the classes do not have: " + documented);
    }
}
