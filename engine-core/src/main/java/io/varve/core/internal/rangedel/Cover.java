package io.varve.core.internal.rangedel;

/**
 * A stretch of keys {@code [begin, end)} that range tombstones delete alike: every entry in it written below
 * {@code sequence} is hidden from the reader that asked. Readers use it to jump over whole deleted stretches
 * instead of stepping through them.
 */
public record Cover(byte[] begin, byte[] end, long sequence) {
}
