package org.fleetmesh.compute.wasm;

import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.wasi.Preview1;
import org.fleetmesh.spi.compute.Metered;
import org.fleetmesh.spi.compute.ValType;

import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.wasm.Parser;

/**
 * Decides whether a module may run (docs/spec/compute-sandbox.md, "Admission"); refusals are {@link JobFailure}s
 * with reason INVALID_MODULE or IMPORT_NOT_ALLOWED. Its own checks: size, structure ({@link ModuleReader}), the
 * instruction set, imports (only preview1 functions with their exact signatures), exports ({@code _start} () -> ()
 * and {@code memory}), no start section, one memory, not shared, initial within the job's pages, no export with a
 * name metering reserves, and with {@code refuseFloats} no f32/f64 at all. Chicory's parser then checks the rest of
 * validity (types, indices, constant expressions, element and data segments).
 */
public final class Admission {
    private final int maxModuleBytes;
    private final boolean refuseFloats;

    public Admission(int maxModuleBytes, boolean refuseFloats) {
        this.maxModuleBytes = maxModuleBytes;
        this.refuseFloats = refuseFloats;
    }

    /** Reads and checks {@code module} for a job with a memory cap of {@code memoryPages}. */
    public ModuleReader.Module admit(byte[] module, int memoryPages) throws JobFailure {
        if (module.length > maxModuleBytes) {
            throw invalid("module is " + module.length + " bytes, more than " + maxModuleBytes);
        }
        ModuleReader.Module m;
        try {
            m = ModuleReader.read(module);
        } catch (ModuleReader.MalformedModule e) {
            throw invalid(e.getMessage());
        }
        for (ModuleReader.Import i : m.imports()) {
            String name = i.module() + "." + i.name();
            if (i.kind() != 0) {
                throw new JobFailure(JobFailure.Reason.IMPORT_NOT_ALLOWED, name + " (only functions are imported)",
                        0);
            }
            if (!i.module().equals(Preview1.MODULE)) {
                throw new JobFailure(JobFailure.Reason.IMPORT_NOT_ALLOWED, name, 0);
            }
            if (i.index() < 0 || i.index() >= m.types().size()) {
                throw invalid("import " + name + ": type index " + i.index());
            }
            ModuleReader.FuncType t = m.types().get(i.index());
            if (!Preview1.offers(i.name(), valTypes(t.params()), valTypes(t.results()))) {
                throw new JobFailure(JobFailure.Reason.IMPORT_NOT_ALLOWED, name
                        + (isPreview1(i.name()) ? " (signature differs from preview1's)" : ""), 0);
            }
        }
        if (m.hasStart()) {
            throw invalid("a start section (the entry point is the export _start)");
        }
        if (m.memories().size() != 1) {
            throw invalid("one memory, exported as \"memory\" (has " + m.memories().size() + ")");
        }
        ModuleReader.MemoryType mem = m.memories().get(0);
        if (mem.shared()) {
            throw invalid("shared memory is not admitted");
        }
        if (mem.initial() > memoryPages) {
            throw invalid("memory starts at " + mem.initial() + " pages, more than the job's " + memoryPages);
        }
        boolean start = false;
        boolean memory = false;
        int imported = m.importedFunctions();
        for (ModuleReader.Export e : m.exports()) {
            if (e.name().equals(Metered.FUEL_GLOBAL) || e.name().equals(Metered.FLAGS_GLOBAL)) {
                throw invalid("export name " + e.name() + " is reserved for metering");
            }
            if (e.name().equals(Metered.START) && e.kind() == 0) {
                int f = e.index() - imported;
                if (e.index() < imported || f >= m.functionTypes().length) {
                    throw invalid("_start must be a function the module defines");
                }
                int type = m.functionTypes()[f];
                if (type < 0 || type >= m.types().size() || m.types().get(type).params().length != 0
                        || m.types().get(type).results().length != 0) {
                    throw invalid("_start must take and return nothing");
                }
                start = true;
            }
            if (e.name().equals(Metered.MEMORY) && e.kind() == 2) {
                memory = true;
            }
        }
        if (!start) {
            throw invalid("no exported function _start (a WASI command)");
        }
        if (!memory) {
            throw invalid("no exported memory \"memory\"");
        }
        if (refuseFloats) {
            refuseFloats(m);
        }
        try {
            Parser.parse(module); // Chicory's checks of the rest (types, indices, segments)
        } catch (ChicoryException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw invalid(String.valueOf(e.getMessage()));
        }
        return m;
    }

    private static boolean isPreview1(String name) {
        for (var f : Preview1.functions()) {
            if (f.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static List<ValType> valTypes(byte[] t) {
        List<ValType> out = new ArrayList<>();
        for (byte b : t) {
            out.add(switch (b & 0xFF) {
                case ModuleReader.I32 -> ValType.I32;
                case ModuleReader.I64 -> ValType.I64;
                case ModuleReader.F32 -> ValType.F32;
                case ModuleReader.F64 -> ValType.F64;
                default -> null;
            });
        }
        return out;
    }

    private static void refuseFloats(ModuleReader.Module m) throws JobFailure {
        for (ModuleReader.FuncType t : m.types()) {
            if (floaty(t.params()) || floaty(t.results())) {
                throw floats("a function type");
            }
        }
        if (floaty(m.globalTypes())) {
            throw floats("a global");
        }
        for (int f = 0; f < m.bodies().size(); f++) {
            ModuleReader.Body b = m.bodies().get(f);
            if (floaty(b.localTypes())) {
                throw floats("a local of function " + f);
            }
            for (int op : b.ops()) {
                if (isFloatOp(op)) {
                    throw floats("instruction 0x" + Integer.toHexString(op) + " in function " + f);
                }
            }
        }
    }

    /** Loads, stores, constants, comparisons, arithmetic and conversions on f32/f64 (and saturating truncations). */
    static boolean isFloatOp(int op) {
        return op == 0x2A || op == 0x2B || op == 0x38 || op == 0x39 || op == 0x43 || op == 0x44
                || (op >= 0x5B && op <= 0x66) || (op >= 0x8B && op <= 0xA6) || (op >= 0xA8 && op <= 0xBF && op != 0xAC
                        && op != 0xAD)
                || (op >= (ModuleReader.PREFIX_FC) && op <= (ModuleReader.PREFIX_FC | 7));
    }

    private static boolean floaty(byte[] types) {
        for (byte b : types) {
            if ((b & 0xFF) == ModuleReader.F32 || (b & 0xFF) == ModuleReader.F64) {
                return true;
            }
        }
        return false;
    }

    private static JobFailure floats(String where) {
        return invalid("floating point is refused on this node (" + where + ")");
    }

    private static JobFailure invalid(String detail) {
        return new JobFailure(JobFailure.Reason.INVALID_MODULE, detail, 0);
    }
}
