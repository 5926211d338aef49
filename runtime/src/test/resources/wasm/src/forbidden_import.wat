;; imports a function from outside WASI: refused "import not allowed: env.foo"
(module
  (import "env" "foo" (func $foo))
  (memory (export "memory") 1)
  (func (export "_start") (call $foo)))
