;; features: threads
;; shared memory without atomics: refused
(module
  (memory (export "memory") 1 1 shared)
  (func (export "_start")))
