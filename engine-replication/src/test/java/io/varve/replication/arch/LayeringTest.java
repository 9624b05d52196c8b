package io.varve.replication.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * engine-replication uses engine-core and engine-raftlog through their APIs only, checked on its compiled
 * classes: an engine's internals may change without notice (docs/architecture.md, "Packages").
 */
@AnalyzeClasses(packages = "io.varve.replication", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule engineApiOnly = noClasses()
            .should().dependOnClassesThat().resideInAPackage("io.varve.core.internal..")
            .because("engine-core's internals are free to change; replication needs what a user gets");
}
