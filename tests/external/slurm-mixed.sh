#!/bin/sh
# Slurm 22.05 on Debian's stock OpenPMIx (slurmd and slurmstepd untouched,
# mpi_pmix_v4 the PMIx server) with the tasks on our libpmix.so.2: our
# client speaking OpenPMIx's wire protocol, one node and two (issue 19's
# "ours under an OpenPMIx server" with Slurm).  The cases are slurm.sh's.
SY_SLURM_LIB=mixed exec sh "$(dirname "$0")/slurm.sh" "$@"
