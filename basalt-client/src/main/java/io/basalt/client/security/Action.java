package io.basalt.client.security;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a grant lets a user do, HBase's five letters. {@link AccessControl} says which operation
 * needs which; docs/security.md has the table.
 */
public enum Action {
    /** Get, scan, exists, the condition of a check-and-mutate. */
    READ('R'),
    /** Put, delete, increment, append, batch, the mutations of a check-and-mutate. */
    WRITE('W'),
    /** Running server-side code. Basalt has none yet: granted and listed, it allows nothing. */
    EXEC('X'),
    /** Create (global), alter, truncate, disable, enable, drop, flush, compact, split and merge tables. */
    CREATE('C'),
    /** Everything {@link #CREATE} allows, granting and revoking, users, the server's status. */
    ADMIN('A');

    private final char letter;

    Action(char letter) {
        this.letter = letter;
    }

    public char letter() {
        return letter;
    }

    /** The actions named by letters such as {@code "RW"}; any other letter is refused by name. */
    public static Set<Action> parse(String letters) {
        if (letters == null || letters.isEmpty()) {
            throw new IllegalArgumentException("no permission given: use letters of RWXCA (read, write, exec, create, admin)");
        }
        EnumSet<Action> actions = EnumSet.noneOf(Action.class);
        for (char c : letters.toCharArray()) {
            Action a = of(Character.toUpperCase(c));
            if (a == null) {
                throw new IllegalArgumentException("'" + c + "' in '" + letters
                        + "' is not a permission: use letters of RWXCA (read, write, exec, create, admin)");
            }
            actions.add(a);
        }
        return actions;
    }

    private static Action of(char letter) {
        for (Action a : values()) {
            if (a.letter == letter) {
                return a;
            }
        }
        return null;
    }

    /** Letters in the order RWXCA, as {@code user_permission} prints them. */
    public static String letters(Set<Action> actions) {
        StringBuilder s = new StringBuilder();
        for (Action a : values()) {
            if (actions.contains(a)) {
                s.append(a.letter);
            }
        }
        return s.toString();
    }
}
