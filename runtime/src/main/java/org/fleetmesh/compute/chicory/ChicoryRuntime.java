package org.fleetmesh.compute.chicory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.fleetmesh.spi.compute.ComputeRuntime;
import org.fleetmesh.spi.compute.Ending;
import org.fleetmesh.spi.compute.Guest;
import org.fleetmesh.spi.compute.GuestExit;
import org.fleetmesh.spi.compute.Host;
import org.fleetmesh.spi.compute.HostAbort;
import org.fleetmesh.spi.compute.HostImport;
import org.fleetmesh.spi.compute.Metered;
import org.fleetmesh.spi.compute.Run;

import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.ByteArrayMemory;
import com.dylibso.chicory.runtime.ChicoryInterruptedException;
import com.dylibso.chicory.runtime.GlobalInstance;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.ExternalType;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.Import;
import com.dylibso.chicory.wasm.types.MemoryLimits;

/**
 * The pure-Java engine on Chicory 1.7.5: id {@code chicory} compiles each module to JVM bytecode with Chicory's
 * runtime compiler ({@link MachineFactoryCompiler}; compiled factories cached per module hash, at most
 * {@link #CACHE} of them), id {@code chicory-interpreter} interprets. The wall clock is enforced by interrupting the
 * running thread (Chicory's interpreter and compiled code both check {@link Thread#isInterrupted()} at calls and loop
 * back edges and throw {@link ChicoryInterruptedException}) and, for good measure, by setting the fuel global
 * negative, which the metering traps on at the next block. The memory cap is the smaller of the module's maximum and
 * {@link Run#maxMemoryPages()}.
 */
public class ChicoryRuntime implements ComputeRuntime {
    public static final String ID = "chicory";
    public static final String INTERPRETER_ID = "chicory-interpreter";
    /** Parsed modules and compiled machine factories kept, by module hash. */
    public static final int CACHE = 32;

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "chicory-timeout");
        t.setDaemon(true);
        return t;
    });

    private final boolean compiled;
    private final Map<String, Compiled> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Compiled> e) {
            return size() > CACHE;
        }
    };

    private record Compiled(WasmModule module, Function<Instance, Machine> machines) {
    }

    /** The compiling engine ({@code chicory}). */
    public ChicoryRuntime() {
        this(true);
    }

    protected ChicoryRuntime(boolean compiled) {
        this.compiled = compiled;
    }

    @Override
    public String id() {
        return compiled ? ID : INTERPRETER_ID;
    }

    private Compiled prepare(Run run) {
        synchronized (cache) {
            Compiled c = cache.get(run.moduleHash());
            if (c != null) {
                return c;
            }
        }
        WasmModule m = Parser.parse(run.module());
        Compiled c = new Compiled(m, compiled ? MachineFactoryCompiler.compile(m) : null);
        synchronized (cache) {
            cache.put(run.moduleHash(), c);
        }
        return c;
    }

    @Override
    public Ending run(Run run) {
        Compiled c;
        Instance instance;
        try {
            c = prepare(run);
            Instance.Builder b = Instance.builder(c.module()).withImportValues(imports(c.module(), run.host()))
                    .withMemoryFactory(limits -> {
                        if (limits.initialPages() > run.maxMemoryPages()) {
                            throw new MemoryCap(limits.initialPages(), run.maxMemoryPages());
                        }
                        return new ByteArrayMemory(new MemoryLimits(limits.initialPages(),
                                Math.min(limits.maximumPages(), run.maxMemoryPages())));
                    })
                    .withStart(false);
            if (c.machines() != null) {
                b.withMachineFactory(c.machines());
            }
            instance = b.build();
        } catch (MemoryCap e) {
            return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, e.getMessage());
        } catch (ChicoryException | IllegalArgumentException | IllegalStateException | IndexOutOfBoundsException e) {
            return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, String.valueOf(e.getMessage()));
        }
        GlobalInstance fuel;
        GlobalInstance flags;
        try {
            fuel = instance.exports().global(Metered.FUEL_GLOBAL);
            flags = instance.exports().global(Metered.FLAGS_GLOBAL);
        } catch (ChicoryException e) {
            return new Ending(Ending.Kind.NOT_INSTANTIATED, 0, run.fuel(), 0, null, "not metered: " + e.getMessage());
        }
        fuel.setValue(run.fuel());
        AtomicBoolean late = new AtomicBoolean();
        Thread self = Thread.currentThread();
        ScheduledFuture<?> timer = TIMER.schedule(() -> {
            late.set(true);
            fuel.setValue(Long.MIN_VALUE / 2);
            self.interrupt();
        }, Math.max(1, run.timeout().toMillis()), TimeUnit.MILLISECONDS);
        Ending.Kind kind;
        int exit = 0;
        HostAbort.Reason abort = null;
        String detail = null;
        try {
            instance.export(Metered.START).apply();
            kind = Ending.Kind.RETURNED;
        } catch (GuestExit e) {
            kind = Ending.Kind.EXITED;
            exit = e.code();
        } catch (HostAbort e) {
            kind = Ending.Kind.ABORTED;
            abort = e.reason();
            detail = e.getMessage();
        } catch (ChicoryInterruptedException e) {
            kind = Ending.Kind.TIMEOUT;
            detail = "interrupted";
        } catch (ChicoryException | ArithmeticException | IndexOutOfBoundsException | StackOverflowError
                | NegativeArraySizeException | IllegalStateException | IllegalArgumentException
                | ClassCastException | NullPointerException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof GuestExit g) {
                kind = Ending.Kind.EXITED;
                exit = g.code();
            } else if (cause instanceof HostAbort h) {
                kind = Ending.Kind.ABORTED;
                abort = h.reason();
                detail = h.getMessage();
            } else {
                kind = Ending.Kind.TRAPPED;
                detail = e instanceof StackOverflowError ? "call stack exhausted" : String.valueOf(e.getMessage());
            }
        } finally {
            timer.cancel(false);
        }
        // the interrupt may land after _start ended: clear it so the caller's thread is not left interrupted
        boolean interrupted = Thread.interrupted();
        if (late.get() && (kind == Ending.Kind.TRAPPED || kind == Ending.Kind.TIMEOUT || interrupted)) {
            kind = Ending.Kind.TIMEOUT;
            detail = "wall clock limit " + run.timeout();
        }
        return new Ending(kind, exit, fuel.getValue(), (int) flags.getValue(), abort, detail);
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        for (int i = 0; i < 8 && t != null; i++) {
            if (t instanceof GuestExit || t instanceof HostAbort) {
                return t;
            }
            t = t.getCause();
        }
        return e;
    }

    /** Links each of the module's imports to the host function with the same module and name. */
    private static ImportValues imports(WasmModule m, Host host) {
        List<HostImport> offered = host.imports();
        Map<String, Integer> byName = new HashMap<>();
        for (int i = 0; i < offered.size(); i++) {
            byName.put(offered.get(i).module() + "\u0000" + offered.get(i).name(), i);
        }
        List<ImportFunction> fns = new ArrayList<>();
        for (int k = 0; k < m.importSection().importCount(); k++) {
            Import imp = m.importSection().getImport(k);
            if (imp.importType() != ExternalType.FUNCTION) {
                continue;
            }
            Integer index = byName.get(imp.module() + "\u0000" + imp.name());
            if (index == null) {
                throw new IllegalArgumentException("the host has no " + imp.module() + "." + imp.name());
            }
            int idx = index;
            fns.add(new HostFunction(imp.module(), imp.name(),
                    m.typeSection().getType(((FunctionImport) imp).typeIndex()),
                    (inst, args) -> host.call(idx, new ChicoryGuest(inst), args)));
        }
        return ImportValues.builder().withFunctions(fns).build();
    }

    private static final class MemoryCap extends RuntimeException {
        MemoryCap(int initial, int cap) {
            super("memory starts at " + initial + " pages, more than the cap of " + cap, null, false, false);
        }
    }

    /** The instance as host functions see it. */
    private static final class ChicoryGuest implements Guest {
        private final Instance instance;
        private final Memory memory;
        private final GlobalInstance fuel;

        ChicoryGuest(Instance instance) {
            this.instance = instance;
            this.memory = instance.memory();
            this.fuel = instance.exports().global(Metered.FUEL_GLOBAL);
        }

        @Override
        public long memorySize() {
            return (long) memory.pages() * Memory.PAGE_SIZE;
        }

        private void check(long address, long length) {
            if (address < 0 || length < 0 || Integer.toUnsignedLong((int) address) + length > memorySize()) {
                throw new HostAbort(HostAbort.Reason.MEMORY_FAULT, "host access at " + Integer.toUnsignedString(
                        (int) address) + "+" + length + " past the memory");
            }
        }

        @Override
        public byte[] read(int address, int length) {
            check(Integer.toUnsignedLong(address), Integer.toUnsignedLong(length));
            return memory.readBytes(address, length);
        }

        @Override
        public void write(int address, byte[] bytes) {
            check(Integer.toUnsignedLong(address), bytes.length);
            memory.write(address, bytes);
        }

        @Override
        public int readI32(int address) {
            check(Integer.toUnsignedLong(address), 4);
            return memory.readInt(address);
        }

        @Override
        public void writeI32(int address, int value) {
            check(Integer.toUnsignedLong(address), 4);
            memory.writeI32(address, value);
        }

        @Override
        public void writeI64(int address, long value) {
            check(Integer.toUnsignedLong(address), 8);
            memory.writeLong(address, value);
        }

        @Override
        public long fuel() {
            return fuel.getValue();
        }

        @Override
        public void fuel(long left) {
            fuel.setValue(left);
        }
    }
}
