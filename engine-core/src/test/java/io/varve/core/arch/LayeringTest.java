package io.varve.core.arch;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * engine-core's layering, checked on its compiled classes (docs/architecture.md, "Packages"): the mechanisms
 * under {@code io.varve.core.internal.*} never reach the orchestration in {@code io.varve.core.internal} and
 * form no cycle; the API subpackages form no cycle among themselves.
 */
@AnalyzeClasses(packages = "io.varve.core", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    private static final DescribedPredicate<JavaClass> INTERNAL = resideInAPackage("io.varve.core.internal..");

    @ArchTest
    static final ArchRule mechanismsDoNotReachTheOrchestration = noClasses()
            .that().resideInAPackage("io.varve.core.internal.(*)..")
            .should().dependOnClassesThat().resideInAPackage("io.varve.core.internal")
            .because("the orchestration wires the mechanisms together; a mechanism calling back into it would"
                    + " make the two one tangle");

    @ArchTest
    static final ArchRule mechanismsFormNoCycle =
            slices().matching("io.varve.core.internal.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule apiPackagesFormNoCycle = slices().matching("io.varve.core.(*)..")
            .should().beFreeOfCycles()
            .ignoreDependency(INTERNAL, DescribedPredicate.alwaysTrue())
            .ignoreDependency(DescribedPredicate.alwaysTrue(), INTERNAL);
}
