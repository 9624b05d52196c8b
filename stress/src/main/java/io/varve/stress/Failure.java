package io.varve.stress;

import java.nio.file.Path;

/**
 * One cycle whose outcome broke a rule.
 *
 * @param cycle the cycle (kill or mutation number) that failed
 * @param what a one-line description
 * @param reproducer the directory holding its reproducer, or null if none could be written
 */
public record Failure(long cycle, String what, Path reproducer) {
}
