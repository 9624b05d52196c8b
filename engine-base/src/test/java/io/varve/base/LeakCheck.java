package io.varve.base;

import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Fails a test that leaves open a resource it acquired: an arena, a table mapping, a file or a background
 * thread registered with {@link LeakDetector}. Resources open before the test (a class-wide fixture) are not
 * its concern. Runs after the test's {@code @AfterEach} methods, so closing there counts.
 *
 * <p>A class with one instance for all its tests ({@link TestInstance.Lifecycle#PER_CLASS}) usually keeps a
 * fixture across them, a server say, which opens files and threads of its own while any test runs (a log
 * file made ready for the next rotation, a table a flush wrote). Those are the fixture's, not the test's, so
 * such a class is checked as a whole instead: whatever was acquired from before its {@code @BeforeAll}
 * methods must be released after its {@code @AfterAll} methods.
 *
 * <p>Register it with {@code @ExtendWith(LeakCheck.class)}, or for a whole module by putting this test-jar on
 * the test class path and setting the JUnit configuration parameter
 * {@code junit.jupiter.extensions.autodetection.enabled=true} (the test-jar lists it in
 * {@code META-INF/services}). It does nothing unless leak detection is on ({@link LeakDetector#PROPERTY}).
 * A test known to leak is exempted with {@link KnownLeak}.
 */
public final class LeakCheck implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LeakCheck.class);
    private static final String OPEN_BEFORE_TEST = "openBeforeTest";
    private static final String OPEN_BEFORE_CLASS = "openBeforeClass";

    @Override
    public void beforeAll(ExtensionContext context) {
        if (sharesOneInstance(context)) {
            remember(context, OPEN_BEFORE_CLASS);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context, OPEN_BEFORE_CLASS);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!sharesOneInstance(context)) {
            remember(context, OPEN_BEFORE_TEST);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context, OPEN_BEFORE_TEST);
    }

    private static boolean sharesOneInstance(ExtensionContext context) {
        return context.getTestInstanceLifecycle().orElse(TestInstance.Lifecycle.PER_METHOD)
                == TestInstance.Lifecycle.PER_CLASS;
    }

    private static void remember(ExtensionContext context, String key) {
        if (!LeakDetector.enabled()) {
            return;
        }
        Set<LeakDetector.Handle> before = Collections.newSetFromMap(new IdentityHashMap<>());
        before.addAll(LeakDetector.open());
        context.getStore(NAMESPACE).put(key, before);
    }

    private static void check(ExtensionContext context, String key) {
        @SuppressWarnings("unchecked")
        Set<LeakDetector.Handle> before = context.getStore(NAMESPACE).remove(key, Set.class);
        if (before == null || exempt(context)) {
            return;
        }
        List<LeakDetector.Handle> leaked = new ArrayList<>();
        for (LeakDetector.Handle handle : LeakDetector.open()) {
            if (!before.contains(handle)) {
                leaked.add(handle);
            }
        }
        if (!leaked.isEmpty()) {
            throw new AssertionError(context.getDisplayName() + " left resources open. "
                    + LeakDetector.describe(leaked));
        }
    }

    private static boolean exempt(ExtensionContext context) {
        if (annotated(context.getTestMethod())) {
            return true;
        }
        for (Optional<Class<?>> type = context.getTestClass(); type.isPresent();
                type = Optional.ofNullable(type.get().getEnclosingClass())) {
            if (annotated(type)) {
                return true;
            }
        }
        return false;
    }

    private static boolean annotated(Optional<? extends AnnotatedElement> element) {
        return element.isPresent() && element.get().isAnnotationPresent(KnownLeak.class);
    }
}
