package org.fleetmesh.compute.wasm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fleetmesh.compute.JobFailure;
import org.fleetmesh.compute.TestModules;
import org.fleetmesh.spi.compute.Metered;
import org.junit.jupiter.api.Test;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;

/** The shape of what metering writes, and the reader's strictness. */
class MeteringTest {
    static ModuleReader.Module admitted(String name) throws JobFailure {
        return new Admission(8 << 20, false).admit(TestModules.load(name), 256);
    }

    @Test
    void appendsTheTwoExportedGlobalsAfterTheModulesOwn() throws JobFailure {
        for (String name : List.of("count", "upper", "sha256sum")) {
            ModuleReader.Module before = admitted(name);
            ModuleReader.Module after = ModuleReader.read(Metering.instrument(before, 256));
            int g = before.globalTypes().length;
            assertEquals(g + 2, after.globalTypes().length, name);
            assertEquals(ModuleReader.I64, after.globalTypes()[g] & 0xFF);
            assertEquals(ModuleReader.I32, after.globalTypes()[g + 1] & 0xFF);
            assertTrue(after.exports().contains(new ModuleReader.Export(Metered.FUEL_GLOBAL, 3, g)));
            assertTrue(after.exports().contains(new ModuleReader.Export(Metered.FLAGS_GLOBAL, 3, g + 1)));
            assertEquals(before.imports(), after.imports(), "no import added");
            assertArrayEquals(before.functionTypes(), after.functionTypes(), "no function added");
            WasmModule parsed = Parser.parse(Metering.instrument(before, 256)); // and it validates
            assertEquals(before.bodies().size(), parsed.codeSection().functionBodyCount());
        }
    }

    @Test
    void meteringIsAFunctionOfTheBytesAndTheCap() throws JobFailure {
        ModuleReader.Module m = admitted("membomb");
        assertArrayEquals(Metering.instrument(m, 64), Metering.instrument(admitted("membomb"), 64));
        assertTrue(!java.util.Arrays.equals(Metering.instrument(m, 64), Metering.instrument(m, 65)),
                "the cap is in the memory.grow check");
    }

    @Test
    void exportsOnlyLeavesTheCodeAsItWas() throws JobFailure {
        ModuleReader.Module before = admitted("upper");
        ModuleReader.Module after = ModuleReader.read(Metering.exportsOnly(before));
        ModuleReader.Section a = before.section(ModuleReader.CODE);
        ModuleReader.Section b = after.section(ModuleReader.CODE);
        assertArrayEquals(java.util.Arrays.copyOfRange(before.bytes(), a.start(), a.end()),
                java.util.Arrays.copyOfRange(after.bytes(), b.start(), b.end()));
        assertEquals(before.globalTypes().length + 2, after.globalTypes().length);
    }

    @Test
    void theScheduleIsTheSpecs() {
        assertEquals(0, Metering.cost(0x0B)); // end
        assertEquals(0, Metering.cost(0x03)); // loop
        assertEquals(1, Metering.cost(0x0D)); // br_if
        assertEquals(1, Metering.cost(0x28)); // i32.load
        assertEquals(4, Metering.cost(0x10)); // call
        assertEquals(8, Metering.cost(0x11)); // call_indirect
        assertEquals(4, Metering.cost(0x6D)); // i32.div_s
        assertEquals(4, Metering.cost(0x9F)); // f64.sqrt
        assertEquals(16, Metering.cost(0x40)); // memory.grow
        assertEquals(16, Metering.cost(ModuleReader.PREFIX_FC | 11)); // memory.fill
        assertEquals(1, Metering.cost(ModuleReader.PREFIX_FC | 0)); // i32.trunc_sat_f32_s
    }

    @Test
    void leb128IsStrict() {
        // u32 5 bytes with bits past the 32nd
        assertThrows(ModuleReader.MalformedModule.class,
                () -> new ModuleReader.Cursor(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x1F}, 0,
                        5).u32());
        assertEquals(-1, new ModuleReader.Cursor(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                0x0F}, 0, 5).u32());
        // s32: -1 in 5 bytes is fine, with a wrong sign extension it is not
        assertEquals(-1, new ModuleReader.Cursor(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                0x7F}, 0, 5).signed(32));
        assertThrows(ModuleReader.MalformedModule.class,
                () -> new ModuleReader.Cursor(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x4F}, 0,
                        5).signed(32));
        assertEquals(Long.MIN_VALUE, new ModuleReader.Cursor(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x7F}, 0, 10)
                .signed(64));
        // running past the end
        assertThrows(ModuleReader.MalformedModule.class,
                () -> new ModuleReader.Cursor(new byte[] {(byte) 0x80}, 0, 1).u32());
    }
}
