;; counts to the number its argument count says... fixed: loops 1000 times, then returns. A fuel vector one can
;; compute by hand (docs/spec/compute-sandbox.md, "Vectors").
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (local $i i32)
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 1000))))))
