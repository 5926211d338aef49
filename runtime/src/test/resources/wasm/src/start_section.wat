;; a start section: refused (the entry point is _start)
(module
  (memory (export "memory") 1)
  (func $init)
  (start $init)
  (func (export "_start")))
