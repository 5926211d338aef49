package org.fleetmesh.spi.compute;

/**
 * A WebAssembly number type. Values cross the SPI as {@code long}: an i32 sign-extended, an i64 as is, an f32 as its
 * IEEE bits ({@code Float.floatToRawIntBits}) in the low 32 bits, an f64 as {@code Double.doubleToRawLongBits}.
 */
public enum ValType {
    I32, I64, F32, F64
}
