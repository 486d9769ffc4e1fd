{
  "targets": [
    {
      "target_name": "curricula_native",
      "sources": ["curricula_native.c"],
      "cflags": ["-O2", "-std=c11", "-Wall", "-Wextra"],
      "libraries": ["-lopenblas", "-lm"]
    }
  ]
}
