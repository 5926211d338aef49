(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (global (export "fleetmesh_fuel") (mut i64) (i64.const 0))
  (global (export "fleetmesh_flags") (mut i32) (i32.const 0))
  (func (export "_start")
    (drop (call $fd_write (i32.const 1) (i32.const 65534) (i32.const 1) (i32.const 8)))))
