package io.varve.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.varve.base.fs.MemFileSystem;
import io.varve.raftlog.RaftLogEngine;
import io.varve.raftlog.RaftLogOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The directory against a HashMap: random look-ups of a small set of names, with reopens and crashes in
 * between. A name always gets the group it got first; no two names ever share one; group 0 is never given.
 */
class GroupDirectoryProperties {

    @Provide
    Arbitrary<List<String>> steps() {
        // "reopen" and "crash" are steps; every other string is a name to look up.
        return Arbitraries.oneOf(Arbitraries.of("reopen", "crash"),
                Arbitraries.strings().withChars("abcé/:").ofMinLength(0).ofMaxLength(4))
                .list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 200)
    void namesKeepTheirGroupsAndNeverShareOne(@ForAll("steps") List<String> steps) throws IOException {
        MemFileSystem fs = new MemFileSystem();
        Path dir = Path.of("/directory");
        RaftLogOptions options = RaftLogOptions.defaults().withFileSystem(fs);
        Map<String, Long> model = new HashMap<>();
        RaftLogEngine engine = RaftLogEngine.open(dir, options);
        GroupDirectory directory = new GroupDirectory(engine);
        try {
            for (String step : steps) {
                switch (step) {
                    case "reopen" -> {
                        engine.close();
                        engine = RaftLogEngine.open(dir, options);
                        directory = new GroupDirectory(engine);
                    }
                    case "crash" -> {
                        fs.crash();
                        try {
                            engine.close(); // the crash retired its handles: the close writes nothing
                        } catch (IOException deadMachine) {
                            // the crashed storage refuses the close's sync; the handles are released all the same
                        }
                        engine = RaftLogEngine.open(dir, options);
                        directory = new GroupDirectory(engine);
                    }
                    default -> {
                        long group = directory.groupOf(step);
                        Long before = model.putIfAbsent(step, group);
                        if (before != null) {
                            assertEquals(before, group, step);
                        }
                        assertNotEquals(GroupDirectory.DIRECTORY_GROUP, group);
                    }
                }
            }
            Set<Long> distinct = new HashSet<>(model.values());
            assertEquals(model.size(), distinct.size(), "a group given to two names: " + model);
        } finally {
            engine.close();
        }
    }
}
