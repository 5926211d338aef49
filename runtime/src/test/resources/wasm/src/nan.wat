;; writes the bits of f32 0/0 and of f64 sqrt(-1) to stdout (8 + 8 hex digits...): 12 raw bytes. Shows the NaN
;; policy: the bit pattern is whatever the engine's arithmetic gives (docs/spec/compute-sandbox.md).
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (f32.store (i32.const 100) (f32.div (f32.const 0) (f32.const 0)))
    (f64.store (i32.const 104) (f64.sqrt (f64.const -1)))
    (i32.store (i32.const 0) (i32.const 100))
    (i32.store (i32.const 4) (i32.const 12))
    (drop (call $w (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 200)))))
