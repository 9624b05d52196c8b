package io.varve.base;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed validation: a checksum mismatch, an impossible length, a truncated structure. It always
 * names the file and the byte offset where the damage was found, so an operator can inspect it.
 */
public class CorruptionException extends IOException {

    private final transient Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String detail) {
        super("corruption in " + file + " at offset " + offset + ": " + detail);
        this.file = file;
        this.offset = offset;
    }

    public Path file() {
        return file;
    }

    public long offset() {
        return offset;
    }
}
