;; grows its memory one page at a time until memory.grow fails or the job's cap stops it
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l
      (br_if $l (i32.ne (memory.grow (i32.const 1)) (i32.const -1))))))
