package io.varve.base;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exempts a test class or method from {@link LeakCheck}: it is known to leave a tracked resource open. Say
 * whose leak it is, and remove the annotation once it is fixed.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface KnownLeak {
    /** Whose resource stays open, and why. */
    String value();
}
