# ABI comparison against OpenPMIx 4.2.2 (headers from libpmix-dev, symbol
# table of its libpmix.so.2).  Runs in make check; see abi-compare.sh.
TESTS += tests/abi/abi-compare.sh
EXTRA_DIST += tests/abi/abi-compare.sh tests/abi/enums.txt tests/abi/structs.txt
# scratch directory of the probes (kept after a run for inspection)
CLEAN_DIRS += tests/abi/abi-work
# Prototypes, callback typedefs and the host module compared with OpenPMIx.
TESTS += tests/abi/prototypes.sh
EXTRA_DIST += tests/abi/prototypes.sh
CLEAN_DIRS += tests/abi/prototypes-work
