package io.varve.server;

import java.util.Map;

/**
 * One section of INFO ({@code server}, {@code stats}, ...): its name and the fields it reports, read each time
 * INFO asks. Each section is built from the components it reports on (see {@link InfoSections}), so the server
 * does not open accessors for the report's sake.
 */
interface InfoSource {

    /** The section's name in lower case, as INFO takes it. */
    String name();

    /** Adds the section's {@code name:value} fields, in the order INFO prints them. */
    void addFields(Map<String, Object> fields);

    static InfoSource of(String name, java.util.function.Consumer<Map<String, Object>> fields) {
        return new InfoSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void addFields(Map<String, Object> into) {
                fields.accept(into);
            }
        };
    }
}
