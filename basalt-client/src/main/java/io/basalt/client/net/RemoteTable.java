package io.basalt.client.net;

import io.basalt.client.Append;
import io.basalt.client.AsyncTable;
import io.basalt.client.BasaltException;
import io.basalt.client.CheckAndMutate;
import io.basalt.client.Delete;
import io.basalt.client.Get;
import io.basalt.client.Increment;
import io.basalt.client.Mutation;
import io.basalt.client.Put;
import io.basalt.client.Result;
import io.basalt.client.ResultScanner;
import io.basalt.client.Scan;
import io.basalt.protocol.MalformedFrameException;
import io.basalt.protocol.OpCode;
import io.basalt.protocol.Status;
import io.basalt.protocol.Wire;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A table on a server. Every request carries the table's name first; the server looks the table
 * up per request, so a dropped table shows up as a {@link io.basalt.client.TableNotFoundException}
 * on the next request.
 */
final class RemoteTable implements AsyncTable {

    private final RpcClient rpc;
    private final String name;
    /** The name as every request carries it, encoded once. */
    private final byte[] nameUtf8;
    private final String onTable;
    /** What each operation is called in errors, by {@link OpCode#ordinal()}: built once, not per request. */
    private final String[] whats;

    RemoteTable(RpcClient rpc, String name) {
        this.rpc = rpc;
        this.name = Objects.requireNonNull(name, "name");
        this.nameUtf8 = name.getBytes(StandardCharsets.UTF_8);
        this.onTable = " on table '" + name + "'";
        this.whats = new String[OpCode.values().length];
        for (OpCode op : OpCode.values()) {
            whats[op.ordinal()] = op + onTable;
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** A frame size hint from a heap estimate (which overestimates the encoding). */
    private static int hint(long heapSize) {
        return (int) Math.min(Integer.MAX_VALUE - 64, heapSize + 64);
    }

    /** What {@code op} on this table is called in errors. */
    private String what(OpCode op) {
        return whats[op.ordinal()];
    }

    private void header(ByteBuf buf) {
        Wire.writeBytes(buf, nameUtf8);
    }

    @Override
    public CompletableFuture<Void> put(Put put) {
        return mutate(OpCode.PUT, put);
    }

    @Override
    public CompletableFuture<Void> delete(Delete delete) {
        return mutate(OpCode.DELETE, delete);
    }

    private CompletableFuture<Void> mutate(OpCode op, Mutation mutation) {
        Objects.requireNonNull(mutation, "mutation");
        return rpc.write(op, what(op), hint(mutation.heapSize()), buf -> {
            header(buf);
            Messages.writeMutation(buf, mutation);
        }, _ -> null);
    }

    @Override
    public CompletableFuture<Result> get(Get get) {
        Objects.requireNonNull(get, "get");
        return rpc.call(OpCode.GET, what(OpCode.GET), buf -> {
            header(buf);
            Messages.writeGet(buf, get);
            Messages.writeConsistency(buf, get);
        }, Messages::readResult);
    }

    @Override
    public CompletableFuture<Result> increment(Increment increment) {
        Objects.requireNonNull(increment, "increment");
        return rpc.write(OpCode.INCREMENT, what(OpCode.INCREMENT), hint(increment.heapSize()), buf -> {
            header(buf);
            Messages.writeMutation(buf, increment);
        }, Messages::readResult);
    }

    @Override
    public CompletableFuture<Result> append(Append append) {
        Objects.requireNonNull(append, "append");
        return rpc.write(OpCode.APPEND, what(OpCode.APPEND), hint(append.heapSize()), buf -> {
            header(buf);
            Messages.writeMutation(buf, append);
        }, Messages::readResult);
    }

    @Override
    public CompletableFuture<Boolean> checkAndMutate(CheckAndMutate checkAndMutate) {
        Objects.requireNonNull(checkAndMutate, "checkAndMutate");
        return rpc.write(OpCode.CHECK_AND_MUTATE, what(OpCode.CHECK_AND_MUTATE), 256, buf -> {
            header(buf);
            Messages.writeCheckAndMutate(buf, checkAndMutate);
        }, buf -> Wire.readBoolean(buf, "applied"));
    }

    /**
     * Sends the whole batch as one request; the response carries each mutation's outcome, and each
     * future completes with its own.
     */
    @Override
    public List<CompletableFuture<Object>> batch(List<? extends Mutation> mutations) {
        List<Mutation> copy = List.copyOf(mutations);
        List<CompletableFuture<Object>> futures = new ArrayList<>(copy.size());
        for (int i = 0; i < copy.size(); i++) {
            futures.add(new CompletableFuture<>());
        }
        if (copy.isEmpty()) {
            return futures;
        }
        String what = "BATCH of " + copy.size() + onTable;
        long bytes = 0;
        for (Mutation m : copy) {
            bytes += m.heapSize();
        }
        rpc.write(OpCode.BATCH, what, hint(bytes), buf -> {
            header(buf);
            Messages.writeMutations(buf, copy);
        }, buf -> readOutcomes(buf, copy.size(), what)).whenComplete((outcomes, failure) -> {
            for (int i = 0; i < futures.size(); i++) {
                if (failure != null) {
                    futures.get(i).completeExceptionally(failure);
                } else if (outcomes.get(i) instanceof Failure f) {
                    futures.get(i).completeExceptionally(f.error);
                } else {
                    futures.get(i).complete(outcomes.get(i));
                }
            }
        });
        return futures;
    }

    private record Failure(BasaltException error) {}

    private List<Object> readOutcomes(ByteBuf buf, int expected, String what) {
        int count = Wire.readVarint(buf, "outcome count");
        if (count != expected) {
            throw new MalformedFrameException(count + " outcomes for " + expected + " mutations");
        }
        List<Object> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int code = Wire.readUnsignedByte(buf, "outcome status");
            Status status = Status.of(code);
            if (status == Status.OK) {
                out.add(Wire.readBoolean(buf, "outcome has result") ? Messages.readResult(buf) : null);
            } else {
                out.add(new Failure(Errors.of("mutation " + i + " of " + what, rpc.server(), status, code,
                        Messages.readError(buf))));
            }
        }
        return out;
    }

    @Override
    public ResultScanner scanner(Scan scan) {
        return new RemoteScanner(rpc, name, Objects.requireNonNull(scan, "scan"));
    }

    @Override
    public CompletableFuture<List<Result>> scanAll(Scan scan) {
        RemoteScanner scanner = new RemoteScanner(rpc, name, Objects.requireNonNull(scan, "scan"));
        return scanner.collectAll();
    }
}
