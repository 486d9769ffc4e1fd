{
  "targets": [
    {
      "target_name": "curricula_native",
      "sources": ["curricula_native.c", "elementwise.c", "fused.c", "attention.c", "model.c"],
      "cflags": ["-O3", "-std=c11", "-fno-trapping-math", "-fno-math-errno", "-Wall", "-Wextra"],
      "libraries": ["-lopenblas", "-lm"]
    }
  ]
}
