;; features: threads
;; shared memory and an atomic instruction: refused
(module
  (memory (export "memory") 1 1 shared)
  (func (export "_start") (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))))
