# hwloc topology: loading, sharing, locality and cpuset strings, relative
# locality, with their tests.
