;; bulk memory: fills 4096 bytes and copies 1024 (dynamic fuel per 8 bytes), then returns
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (memory.fill (i32.const 0) (i32.const 7) (i32.const 4096))
    (memory.copy (i32.const 8192) (i32.const 0) (i32.const 1024))))
