package io.basalt.server;

import io.basalt.client.Admin;
import io.basalt.client.AsyncTable;
import io.basalt.client.BufferedMutator;
import io.basalt.client.Connection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * A store whose tables' calls go through a test's hook before (or instead of) the store: to make
 * writes fail as a read-only store's would, or to hand out scanners the test controls.
 */
final class HookedStore implements Connection {

    /** Decides what a call on a table does; {@link #pass} hands it to the store. */
    interface Hook {
        Object call(AsyncTable table, Method method, Object[] args) throws Throwable;
    }

    final Connection store;
    private final Hook hook;

    HookedStore(Connection store, Hook hook) {
        this.store = store;
        this.hook = hook;
    }

    /** Calls {@code method} on the store's table, throwing what it throws. */
    static Object pass(AsyncTable table, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(table, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public AsyncTable table(String name) {
        AsyncTable table = store.table(name);
        return (AsyncTable) Proxy.newProxyInstance(HookedStore.class.getClassLoader(), new Class<?>[] {AsyncTable.class},
                (_, method, args) -> hook.call(table, method, args));
    }

    @Override
    public Admin admin() {
        return store.admin();
    }

    @Override
    public BufferedMutator.Builder bufferedMutator(String name) {
        return store.bufferedMutator(name);
    }

    @Override
    public String target() {
        return store.target();
    }

    @Override
    public void close() {
        store.close();
    }
}
