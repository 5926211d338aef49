;; a SIMD instruction (0xFD): refused, SIMD is not metered
(module
  (memory (export "memory") 1)
  (func (export "_start") (drop (i32x4.splat (i32.const 1)))))
