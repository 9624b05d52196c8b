package io.varve.raftlog.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * engine-raftlog's layering, checked on its compiled classes: its packages form no cycle, the parts below the
 * engine never reach back into {@code io.varve.raftlog} (where {@code RaftLogEngine} wires them), and the
 * log store stays free of the LSM (docs/architecture.md, on engine-base).
 */
@AnalyzeClasses(packages = "io.varve.raftlog", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule packagesFormNoCycle = slices().matching("io.varve.raftlog.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule partsDoNotReachTheEngine = noClasses()
            .that().resideInAPackage("io.varve.raftlog.(*)..")
            .should().dependOnClassesThat().resideInAPackage("io.varve.raftlog")
            .because("RaftLogEngine wires the file, format, index, write, purge and recovery parts together");

    @ArchTest
    static final ArchRule noLsm = noClasses().should().dependOnClassesThat().resideInAPackage("io.varve.core..")
            .because("the log store shares engine-base with the LSM, nothing else");
}
