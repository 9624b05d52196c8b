package io.varve.base;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * {@link LeakCheck} for jqwik properties: a property whose tries, taken together, leave open a resource they
 * acquired fails. Registered for every property of a module that has this test-jar on its test class path
 * (listed in {@code META-INF/services}); does nothing unless leak detection is on. {@link KnownLeak} exempts.
 *
 * <p>It wraps the property's {@code @BeforeProperty} and {@code @AfterProperty} methods too, so a fixture the
 * property's container starts and stops around it counts as the property's: what the fixture opens while the
 * tries run (a file a log reader opens on first use, say) must be closed when the fixture stops.
 */
public final class PropertyLeakCheck implements AroundPropertyHook {

    /** Registered once for the whole engine run, it must reach every property below. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    /** Outside jqwik's property lifecycle methods (-10), inside its statistics reporting (-50). */
    @Override
    public int aroundPropertyProximity() {
        return -20;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        if (!LeakDetector.enabled() || context.targetMethod().isAnnotationPresent(KnownLeak.class)
                || exempt(context.containerClass())) {
            return property.execute();
        }
        Set<LeakDetector.Handle> before = Collections.newSetFromMap(new IdentityHashMap<>());
        before.addAll(LeakDetector.open());
        PropertyExecutionResult result = property.execute();
        if (result.status() != PropertyExecutionResult.Status.SUCCESSFUL) {
            return result;
        }
        List<LeakDetector.Handle> leaked = new ArrayList<>();
        for (LeakDetector.Handle handle : LeakDetector.open()) {
            if (!before.contains(handle)) {
                leaked.add(handle);
            }
        }
        return leaked.isEmpty() ? result : result.mapToFailed(new AssertionError(context.label()
                + " left resources open. " + LeakDetector.describe(leaked)));
    }

    private static boolean exempt(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
            if (t.isAnnotationPresent(KnownLeak.class)) {
                return true;
            }
        }
        return false;
    }
}
