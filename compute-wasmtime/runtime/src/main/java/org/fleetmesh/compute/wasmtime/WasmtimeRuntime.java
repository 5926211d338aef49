package org.fleetmesh.compute.wasmtime;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.GuestExit;
import org.fleetmesh.spi.compute.Host;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.HostImport;
import org.fleetmesh.spi.compute.Metered;
import org.fleetmesh.spi.compute.Run;
import org.fleetmesh.spi.compute.ValType;
import org.fleetmesh.spi.nativelib.UnpackedLibraries;
import org.fleetmesh.spi.schedule.Repeating;

import io.github.kawamuray.wasmtime.Config;
import io.github.kawamuray.wasmtime.Engine;
import io.github.kawamuray.wasmtime.Extern;
import io.github.kawamuray.wasmtime.Func;
import io.github.kawamuray.wasmtime.FuncType;
import io.github.kawamuray.wasmtime.Global;
import io.github.kawamuray.wasmtime.ImportType;
import io.github.kawamuray.wasmtime.Instance;
import io.github.kawamuray.wasmtime.Memory;
import io.github.kawamuray.wasmtime.Module;
import io.github.kawamuray.wasmtime.NativeLibraryLoader;
import io.github.kawamuray.wasmtime.Store;
import io.github.kawamuray.wasmtime.Trap;
import io.github.kawamuray.wasmtime.Val;
import io.github.kawamuray.wasmtime.WasmFunctionError;

/**
 * The {@code wasmtime} engine (docs/spec/compute-runtimes.md): native wasmtime 7.0.1 (Cranelift) through
 * io.github.kawamuray.wasmtime:wasmtime-java 0.19.0. It runs the core's metered module as every engine does; its own
 * additions are three accessor exports ({@link Accessors}) and the wall-clock limit by epoch interruption: a daemon
 * ticks the engine's epoch every {@link #TICK}, and each store's deadline is its timeout in ticks, so a guest that
 * loops is stopped at the next loop header or function entry. Compiled modules are cached by hash (at most
 * {@link #CACHE} of them). Unmaintained binding over an old wasmtime: for cross-checks and benchmarks, not for
 * modules from strangers (the spec says why).
 */
public final class WasmtimeRuntime implements ComputeRuntime {
    public static final String ID = "wasmtime";
    static final Duration TICK = Duration.ofMillis(10);
    static final int CACHE = 32;
    /** A deadline no run reaches: set before reading the globals after a run, since a passed deadline traps anew. */
    private static final long NEVER = Long.MAX_VALUE / 4;

    private final Map<String, Compiled> cache = new LinkedHashMap<>(16, 0.75f, true);

    /** The process's one wasmtime engine, with the epoch ticker that every run's timeout counts on. */
    private static final class Shared {
        static final Engine ENGINE;
        static {
            // the binding unpacks its 18 MB library into the temporary directory at each process's first run and never
            // deletes it: loaded now, the copy is unlinked (the mapping stays until the process ends)
            NativeLibraryLoader.init();
            UnpackedLibraries.unlinkMapped(Path.of(System.getProperty("java.io.tmpdir")), "libwasmtime_jni_", "");
            try (Config c = new Config()) {
                c.epochInterruption(true);
                ENGINE = new Engine(c);
            }
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "wasmtime-epoch");
                t.setDaemon(true);
                return t;
            });
            ticker.scheduleAtFixedRate(Repeating.surviving("the wasmtime epoch tick", ENGINE::incrementEpoch),
                    TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Loads nothing: the native library is loaded on the first run, so that a platform where it does not load still
     * lists this engine (its runs end NOT_INSTANTIATED, saying why) and ServiceLoader still finds the other engines.
     */
    public WasmtimeRuntime() {
    }

    /** The shared engine; {@link LinkageError} when the native library does not load here. */
    private static Engine engine() {
        return Shared.ENGINE;
    }

    @Override
    public String id() {
        return ID;
    }

    /** A compiled module and how many runs use it: evicted entries are disposed once the last run ends. */
    private static final class Compiled {
        final Module module;
        final long initialPages;
        int users;
        boolean evicted;

        Compiled(Module module, long initialPages) {
            this.module = module;
            this.initialPages = initialPages;
        }
    }

    private Compiled acquire(Run run) {
        synchronized (cache) {
            Compiled c = cache.get(run.moduleHash());
            if (c != null) {
                c.users++;
                return c;
            }
        }
        // compiling can take a while: outside the lock; two runs of one new module may both compile, one wins
        Accessors.Rewritten w = Accessors.add(run.module());
        Compiled fresh = new Compiled(Module.fromBinary(engine(), w.module()), w.initialPages());
        synchronized (cache) {
            Compiled c = cache.get(run.moduleHash());
            if (c != null) {
                fresh.evicted = true;
                release(fresh);
                c.users++;
                return c;
            }
            fresh.users = 1;
            cache.put(run.moduleHash(), fresh);
            if (cache.size() > CACHE) {
                var eldest = cache.entrySet().iterator();
                Compiled old = eldest.next().getValue();
                eldest.remove();
                old.evicted = true;
                if (old.users == 0) {
                    old.module.dispose();
                }
            }
            return fresh;
        }
    }

    /** How many compiled modules the cache holds now (at most {@link #CACHE}). */
    int cached() {
        synchronized (cache) {
            return cache.size();
        }
    }

    private void release(Compiled c) {
        synchronized (cache) {
            if (c.users > 0) {
                c.users--;
            }
            if (c.evicted && c.users == 0) {
                c.module.dispose();
            }
        }
    }

    @Override
    public Ending run(Run run) {
        Compiled compiled;
        try {
            compiled = acquire(run);
        } catch (RuntimeException e) {
            return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, "wasmtime: " + e.getMessage());
        } catch (LinkageError e) {
            return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null,
                    "wasmtime: the native library does not load on this platform: " + e);
        }
        try {
            if (compiled.initialPages > run.maxMemoryPages()) {
                return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, "the module's memory starts at "
                        + compiled.initialPages + " pages, over the cap of " + run.maxMemoryPages());
            }
            return instantiateAndRun(compiled.module, run);
        } finally {
            release(compiled);
        }
    }

    private Ending instantiateAndRun(Module module, Run run) {
        Store<Void> store = new Store<>(null, engine());
        List<Func> funcs = new ArrayList<>();
        Instance instance = null;
        State state = new State(store);
        try {
            store.setEpochDeadline(ticks(run.timeout()));
            Map<String, Integer> byName = new HashMap<>();
            List<HostImport> offered = run.host().imports();
            for (int i = 0; i < offered.size(); i++) {
                byName.put(offered.get(i).module() + "\0" + offered.get(i).name(), i);
            }
            List<Extern> externs = new ArrayList<>();
            for (ImportType it : module.imports()) {
                Integer index = byName.get(it.module() + "\0" + it.name());
                if (it.type() != ImportType.Type.FUNC || index == null) {
                    return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null,
                            "the host has no function " + it.module() + "." + it.name());
                }
                HostImport h = offered.get(index);
                Func f = new Func(store, new FuncType(types(h.params()), types(h.results())),
                        (caller, params, results) -> call(state, run.host(), index, h, caller, params, results));
                funcs.add(f);
                externs.add(Extern.fromFunc(f));
            }
            try {
                instance = new Instance(store, module, externs);
            } catch (RuntimeException e) {
                return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, "wasmtime: " + e.getMessage());
            }
            Optional<Memory> memory = instance.getMemory(store, Metered.MEMORY);
            Optional<Func> start = instance.getFunc(store, Metered.START);
            Optional<Func> fuelSet = instance.getFunc(store, Accessors.FUEL_SET);
            Optional<Func> fuelGet = instance.getFunc(store, Accessors.FUEL_GET);
            Optional<Func> flagsGet = instance.getFunc(store, Accessors.FLAGS_GET);
            if (memory.isEmpty() || start.isEmpty() || fuelSet.isEmpty() || fuelGet.isEmpty() || flagsGet.isEmpty()) {
                return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null,
                        "the module lacks its memory, _start or the fuel accessors");
            }
            state.memory = memory.get();
            try (Func set = fuelSet.get()) {
                set.call(store, Val.fromI64(run.fuel()));
            }
            Ending.Kind kind = Ending.Kind.RETURNED;
            int exit = 0;
            String detail = null;
            try (Func s = start.get()) {
                s.call(store);
            } catch (RuntimeException e) {
                if (state.exit != null) {
                    kind = Ending.Kind.EXITED;
                    exit = state.exit.code();
                } else if (state.abort != null) {
                    kind = Ending.Kind.ABORTED;
                    detail = state.abort.getMessage();
                } else if (e instanceof WasmFunctionError.TrapError
                        && ((WasmFunctionError.TrapError) e).trap() == Trap.INTERRUPT) {
                    kind = Ending.Kind.TIMEOUT;
                    detail = "wall-clock limit " + run.timeout() + " passed";
                } else if (state.failure != null) {
                    kind = Ending.Kind.TRAPPED;
                    detail = "host call failed: " + state.failure;
                } else {
                    kind = Ending.Kind.TRAPPED;
                    detail = e instanceof WasmFunctionError.TrapError
                            ? trapWords(((WasmFunctionError.TrapError) e).trap())
                            : String.valueOf(e.getMessage());
                }
            }
            store.setEpochDeadline(NEVER);
            long fuel;
            int flags;
            try (Func g = fuelGet.get(); Func fl = flagsGet.get()) {
                fuel = g.call(store)[0].i64();
                flags = fl.call(store)[0].i32();
            }
            return new Ending(kind, exit, fuel, flags, state.abort == null ? null : state.abort.reason(), detail);
        } finally {
            for (Func f : funcs) {
                f.dispose();
            }
            if (instance != null) {
                instance.dispose();
            }
            store.dispose();
        }
    }

    /** The epoch deadline of a timeout: whole ticks, rounded up, plus one for the tick already under way. */
    static long ticks(Duration timeout) {
        long t = TICK.toNanos();
        return Math.max(1, (timeout.toNanos() + t - 1) / t) + 1;
    }

    private static String trapWords(Trap t) {
        switch (t) {
            case UNREACHABLE_CODE_REACHED:
                return "unreachable";
            case MEMORY_OUT_OF_BOUNDS:
            case HEAP_MISALIGNED:
                return "out of bounds memory access";
            case INTEGER_DIVISION_BY_ZERO:
                return "integer divide by zero";
            case INTEGER_OVERFLOW:
                return "integer overflow";
            case BAD_CONVERSION_TO_INTEGER:
                return "invalid conversion to integer";
            case STACK_OVERFLOW:
                return "call stack exhausted";
            case INDIRECT_CALL_TO_NULL:
                return "uninitialized element";
            case BAD_SIGNATURE:
                return "indirect call type mismatch";
            case TABLE_OUT_OF_BOUNDS:
                return "undefined element";
            default:
                return t.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        }
    }

    private static void call(State state, Host host, int index, HostImport h,
            io.github.kawamuray.wasmtime.Caller<Void> caller, Val[] params, Val[] results) {
        if (state.fuel == null) {
            state.fuel = caller.getExport(Metered.FUEL_GLOBAL).map(Extern::global).orElseThrow(
                    () -> new IllegalStateException("the module does not export " + Metered.FUEL_GLOBAL));
        }
        long[] args = new long[params.length];
        for (int i = 0; i < params.length; i++) {
            args[i] = fromVal(params[i], h.params().get(i));
        }
        long[] out;
        state.view = null; // the guest may have grown its memory since the last host call
        try {
            out = host.call(index, state, args);
        } catch (GuestExit e) {
            state.exit = e;
            throw e;
        } catch (HostAbort e) {
            state.abort = e;
            throw e;
        } catch (RuntimeException e) {
            state.failure = e;
            throw e;
        }
        for (int i = 0; i < results.length; i++) {
            results[i] = toVal(out[i], h.results().get(i));
        }
    }

    private static Val.Type[] types(List<ValType> ts) {
        Val.Type[] out = new Val.Type[ts.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Val.Type.valueOf(ts.get(i).name());
        }
        return out;
    }

    private static long fromVal(Val v, ValType t) {
        switch (t) {
            case I32:
                return v.i32();
            case I64:
                return v.i64();
            case F32:
                return Float.floatToRawIntBits(v.f32()) & 0xFFFFFFFFL;
            default:
                return Double.doubleToRawLongBits(v.f64());
        }
    }

    private static Val toVal(long v, ValType t) {
        switch (t) {
            case I32:
                return Val.fromI32((int) v);
            case I64:
                return Val.fromI64(v);
            case F32:
                return Val.fromF32(Float.intBitsToFloat((int) v));
            default:
                return Val.fromF64(Double.longBitsToDouble(v));
        }
    }

    /** One run's instance as host functions see it, and how a host call ended it. */
    private static final class State implements Guest {
        final Store<Void> store;
        Memory memory;
        /** The memory as this host call sees it (a host call does not grow it; each call fetches it anew). */
        ByteBuffer view;
        Global fuel;
        GuestExit exit;
        HostAbort abort;
        RuntimeException failure;

        State(Store<Void> store) {
            this.store = store;
        }

        /** The memory as it is now (a grow moves it), little-endian as WebAssembly is. */
        private ByteBuffer buffer() {
            if (view == null) {
                view = memory.buffer(store).order(ByteOrder.LITTLE_ENDIAN);
            }
            return view;
        }

        private ByteBuffer at(int address, long length) {
            ByteBuffer b = buffer();
            if (address < 0 || length < 0 || (address & 0xFFFFFFFFL) + length > b.capacity()) {
                throw new HostAbort(HostAbort.Reason.MEMORY_FAULT, "memory access at " + Integer.toUnsignedString(
                        address) + " of " + length + " bytes is outside the memory (" + b.capacity() + " bytes)");
            }
            return b;
        }

        @Override
        public long memorySize() {
            return memory.dataSize(store);
        }

        @Override
        public byte[] read(int address, int length) {
            ByteBuffer b = at(address, length);
            byte[] out = new byte[length];
            b.get(address, out);
            return out;
        }

        @Override
        public void write(int address, byte[] bytes) {
            at(address, bytes.length).put(address, bytes);
        }

        @Override
        public int readI32(int address) {
            return at(address, 4).getInt(address);
        }

        @Override
        public void writeI32(int address, int value) {
            at(address, 4).putInt(address, value);
        }

        @Override
        public void writeI64(int address, long value) {
            at(address, 8).putLong(address, value);
        }

        @Override
        public long fuel() {
            return fuel.get(store).i64();
        }

        @Override
        public void fuel(long left) {
            fuel.set(store, Val.fromI64(left));
        }
    }
}
