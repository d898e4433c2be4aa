package io.basalt.client;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A table's name and column families.
 *
 * @param name 1 to 128 characters of {@code [A-Za-z0-9_.-]}
 * @param families at least one, names unique, in the order given
 */
public record TableDescriptor(String name, List<FamilyDescriptor> families) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    public TableDescriptor {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("table name '" + name
                    + "' must be 1 to 128 characters of letters, digits, '_', '.' or '-', and not . or ..");
        }
        families = List.copyOf(families);
        if (families.isEmpty()) {
            throw new IllegalArgumentException("table '" + name + "' needs at least one column family");
        }
        Set<String> seen = new LinkedHashSet<>();
        for (FamilyDescriptor family : families) {
            if (!seen.add(family.name())) {
                throw new IllegalArgumentException("table '" + name + "' names column family '" + family.name()
                        + "' twice");
            }
        }
    }

    /** A table whose families have default options. */
    public static TableDescriptor of(String name, String... families) {
        List<FamilyDescriptor> list = new ArrayList<>();
        for (String family : families) {
            list.add(FamilyDescriptor.of(family));
        }
        return new TableDescriptor(name, list);
    }

    /** The family called {@code name}. */
    public Optional<FamilyDescriptor> family(String name) {
        return families.stream().filter(f -> f.name().equals(name)).findFirst();
    }
}
