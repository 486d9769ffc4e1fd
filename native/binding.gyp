{
  "targets": [
    {
      "target_name": "curricula_native",
      "sources": ["curricula_native.c", "elementwise.c", "fused.c", "attention.c", "model.c", "model-shapes.c",
                  "model-kernels.c", "model-passes.c", "model-diagnostics.c",
                  "model-arena.c", "model-args.c", "model-decode.c"],
      "cflags": ["-O3", "-std=c11", "-fno-trapping-math", "-fno-math-errno", "-Wall", "-Wextra", "-pthread"],
      "libraries": ["-lopenblas", "-lm", "-lpthread"]
    }
  ]
}
