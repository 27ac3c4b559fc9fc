/*
 * Switchyard -- PMIx API version.
 *
 * The numbers describe the API generation we are compatible with
 * (OpenPMIx 4.2), not our own release: configure scripts of Open MPI,
 * Slurm and others test them to decide which PMIx features to use.
 * Our own release is in the string returned by PMIx_Get_version().
 */
#ifndef PMIx_VERSION_H
#define PMIx_VERSION_H

#define PMIX_VERSION_MAJOR 4L
#define PMIX_VERSION_MINOR 2L
#define PMIX_VERSION_RELEASE 2L

/* 0x00MMmmrr: major, minor, release */
#define PMIX_NUMERIC_VERSION 0x00040202

#endif /* PMIx_VERSION_H */
