{
  "targets": [
    {
      "target_name": "curricula_native",
      "sources": ["curricula_native.c", "attention.c"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "libraries": ["-lopenblas", "-lm"]
    }
  ]
}
