;; fd_write with a signature preview1 does not have: refused
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $w (i32.const 1) (i32.const 0)))))
