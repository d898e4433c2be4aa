package io.basalt.client.security;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A grant: {@code actions} for {@code user} at one scope, global ({@code table} null), a table, or
 * one column family of a table. A wider scope covers the narrower ones. Create, admin and exec make
 * sense only for a table or globally; a family takes read and write.
 */
public record Permission(String user, String table, String family, Set<Action> actions) {

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");

    public Permission {
        user = checkUser(user);
        if (family != null && table == null) {
            throw new IllegalArgumentException("a family permission needs its table");
        }
        actions = Set.copyOf(actions.isEmpty() ? EnumSet.noneOf(Action.class) : EnumSet.copyOf(actions));
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("a permission needs at least one of RWXCA");
        }
        if (family != null) {
            for (Action a : actions) {
                if (a != Action.READ && a != Action.WRITE) {
                    throw new IllegalArgumentException(a.letter() + " applies to a table or globally, not to a column"
                            + " family: grant it on '" + table + "'");
                }
            }
        }
    }

    /** {@code actions} everywhere. */
    public static Permission global(String user, Set<Action> actions) {
        return new Permission(user, null, null, actions);
    }

    public static Permission onTable(String user, String table, Set<Action> actions) {
        return new Permission(user, Objects.requireNonNull(table, "table"), null, actions);
    }

    public static Permission onFamily(String user, String table, String family, Set<Action> actions) {
        return new Permission(user, Objects.requireNonNull(table, "table"), Objects.requireNonNull(family, "family"),
                actions);
    }

    /** Whether this grant allows {@code action} on {@code table}'s {@code family} (null: the whole table; both null: global). */
    public boolean allows(Action action, String onTable, String onFamily) {
        if (!actions.contains(action)) {
            return false;
        }
        if (table == null) {
            return true;
        }
        if (!table.equals(onTable)) {
            return false;
        }
        return family == null || family.equals(onFamily);
    }

    /** "global", "table 't'" or "family 't:f'", for messages. */
    public String scope() {
        return table == null ? "global" : family == null ? "table '" + table + "'" : "family '" + table + ":" + family + "'";
    }

    /** A user's name as accepted everywhere: 1 to 64 of letters, digits, '_', '.', '@' and '-'. */
    public static String checkUser(String user) {
        Objects.requireNonNull(user, "user");
        if (!USER.matcher(user).matches()) {
            throw new IllegalArgumentException("user name '" + user
                    + "' must be 1 to 64 characters of letters, digits, '_', '.', '@' or '-'");
        }
        return user;
    }

    @Override
    public String toString() {
        return user + " " + Action.letters(actions) + " " + scope();
    }
}
