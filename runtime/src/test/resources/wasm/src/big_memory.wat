;; memory starts at 300 pages: refused when the job's cap is lower
(module
  (memory (export "memory") 300)
  (func (export "_start")))
