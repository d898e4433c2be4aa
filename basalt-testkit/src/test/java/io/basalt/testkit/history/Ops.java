package io.basalt.testkit.history;

/** Short names for building operations in tests. */
final class Ops {

    private Ops() {}

    static Op.Read read(String key) {
        return new Op.Read(key);
    }

    static Op.Write write(String key, String value) {
        return new Op.Write(key, value);
    }

    static Op.Cas cas(String key, String expected, String newValue) {
        return new Op.Cas(key, expected, newValue);
    }

    static Op.Add add(String key, long delta) {
        return new Op.Add(key, delta);
    }

    static Op.ReadCounter readCounter(String key) {
        return new Op.ReadCounter(key);
    }

    /** Runs {@code op} with nothing concurrent: invokes and completes it at once. */
    static void run(History history, int client, Op op, Object output) {
        history.ok(history.invoke(client, op), output);
    }
}
