package io.varve.server.arch;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The server's layers, checked on its compiled classes: commands -> types -> store -> engine, never back, and
 * no cycles between the server's packages (docs/server.md, "Code layout").
 */
@AnalyzeClasses(packages = "io.varve.server", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule commandsDoNotReachTheEngine = noClasses()
            .that().resideInAPackage("io.varve.server.command..")
            .should().dependOnClassesThat().resideInAPackage("io.varve.core..")
            .because("commands parse arguments and write replies; storage goes through io.varve.server.types");

    @ArchTest
    static final ArchRule typesSitBelowCommandsAndTheProtocol = noClasses()
            .that().resideInAPackage("io.varve.server.types..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.varve.server.command..", "io.varve.server.resp..", "io.varve.server.replica..")
            .because("the type layer knows storage, not the protocol or the commands above it");

    @ArchTest
    static final ArchRule storeSitsBelowTypes = noClasses()
            .that().resideInAPackage("io.varve.server.store..")
            .should().dependOnClassesThat().resideInAnyPackage("io.varve.server.types..",
                    "io.varve.server.command..", "io.varve.server.resp..", "io.varve.server.replica..")
            .because("the store throws typed exceptions and builds engine keys; it never speaks RESP");

    @ArchTest
    static final ArchRule engineApiOnly = noClasses()
            .should().dependOnClassesThat().resideInAPackage("io.varve.core.internal..")
            .because("engine-core's internals are free to change; the server needs what a user gets");

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("io.varve.server.(*)..").should().beFreeOfCycles();
}
