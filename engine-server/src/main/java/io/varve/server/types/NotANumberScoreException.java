package io.varve.server.types;

/**
 * An increment would make a member's score NaN (+inf plus -inf). Nothing is written; the dispatcher answers
 * Redis's {@code ERR resulting score is not a number (NaN)}. No stack trace: ordinary control flow.
 */
public final class NotANumberScoreException extends RuntimeException {

    public NotANumberScoreException() {
        super("resulting score is not a number", null, false, false);
    }
}
