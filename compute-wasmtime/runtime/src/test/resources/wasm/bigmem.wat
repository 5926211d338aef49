(module
  (memory (export "memory") 5)
  (global (export "fleetmesh_fuel") (mut i64) (i64.const 0))
  (global (export "fleetmesh_flags") (mut i32) (i32.const 0))
  (func (export "_start")))
