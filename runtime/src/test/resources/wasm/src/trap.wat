;; divides by zero: the job ends "trap: ..."
(module
  (memory (export "memory") 1)
  (func (export "_start") (drop (i32.div_u (i32.const 1) (i32.const 0)))))
