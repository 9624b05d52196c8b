package io.varve.base.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** engine-base sits under both engines: it names neither, and its packages form no cycle. */
@AnalyzeClasses(packages = "io.varve.base", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule belowBothEngines = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("io.varve.core..", "io.varve.raftlog..")
            .because("both engines build on engine-base; it depends on neither");

    @ArchTest
    static final ArchRule packagesFormNoCycle = slices().matching("io.varve.base.(*)..").should().beFreeOfCycles();
}
