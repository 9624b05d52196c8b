package io.varve.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** File names are part of the on-disk format: existing databases hold files named this way. */
class DbFilesTest {

    private static final Path DIR = Path.of("/db");

    @Test
    void numbersHaveAtLeastSixDigitsAndParseBack() {
        assertEquals(DIR.resolve("000000.log"), DbFiles.log(DIR, 0));
        assertEquals(DIR.resolve("000012.sst"), DbFiles.table(DIR, 12));
        assertEquals(DIR.resolve("999999.sst"), DbFiles.table(DIR, 999_999));
        assertEquals(DIR.resolve("1234567.log"), DbFiles.log(DIR, 1_234_567));
        for (long n : new long[] {0, 7, 123_456, 1_000_000, Long.MAX_VALUE / 1000}) {
            assertEquals(OptionalLong.of(n),
                    DbFiles.parseNumber(DbFiles.table(DIR, n).getFileName().toString(), DbFiles.TABLE_SUFFIX));
        }
    }
}
