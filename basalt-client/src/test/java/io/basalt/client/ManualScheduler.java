package io.basalt.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A scheduler whose tasks run only when a test fires them, and which records cancellations. */
final class ManualScheduler extends ScheduledThreadPoolExecutor {

    /** One scheduled task. */
    static final class Task implements ScheduledFuture<Object> {
        final Runnable action;
        volatile boolean cancelled;
        volatile boolean ran;

        Task(Runnable action) {
            this.action = action;
        }

        /** Runs the task as a timer would, even if it was cancelled too late to stop it. */
        void fire() {
            ran = true;
            action.run();
        }

        @Override
        public boolean cancel(boolean interrupt) {
            cancelled = true;
            return !ran;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return ran || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed o) {
            return 0;
        }
    }

    final List<Task> tasks = new ArrayList<>();

    ManualScheduler() {
        super(0);
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Task task = new Task(command);
        tasks.add(task);
        return task;
    }

    synchronized Task last() {
        return tasks.getLast();
    }
}
