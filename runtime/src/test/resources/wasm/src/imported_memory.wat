;; imports its memory: refused (only functions are imported)
(module
  (import "wasi_snapshot_preview1" "memory" (memory 1))
  (export "memory" (memory 0))
  (func (export "_start")))
