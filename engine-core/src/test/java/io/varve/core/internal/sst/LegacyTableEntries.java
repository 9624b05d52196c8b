package io.varve.core.internal.sst;

import io.varve.core.sst.TableOptions;
import io.varve.core.internal.keys.InternalKey;
import io.varve.core.internal.keys.ValueKind;
import io.varve.core.internal.sst.TableFixtures.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The entries of the table stored in {@code legacy-lz4-table.sst} (test resources), which was written by
 * the table writer as it was when tables were compressed with lz4-java: text, random and run-length values,
 * and deletions, in blocks of 1 KiB. Regenerating the entries here must give exactly what the file holds.
 */
final class LegacyTableEntries {

    static final TableOptions OPTIONS = TableOptions.defaults().withBlockSize(1024);

    private LegacyTableEntries() {
    }

    static List<Entry> entries() {
        Random random = new Random(20261125);
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            byte[] key = String.format("legacy-%06d", i).getBytes(StandardCharsets.US_ASCII);
            if (i % 10 == 9) {
                entries.add(new Entry(key, InternalKey.trailer(1 + i, ValueKind.DELETE), new byte[0]));
                continue;
            }
            byte[] value;
            switch (i % 3) {
                case 0 -> value = ("value " + i + " of the legacy table; ").repeat(4)
                        .getBytes(StandardCharsets.US_ASCII);
                case 1 -> {
                    value = new byte[20 + random.nextInt(100)];
                    random.nextBytes(value);
                }
                default -> {
                    value = new byte[1 + random.nextInt(300)];
                    Arrays.fill(value, (byte) i);
                }
            }
            entries.add(new Entry(key, InternalKey.trailer(1 + i, ValueKind.PUT), value));
        }
        return entries;
    }
}
