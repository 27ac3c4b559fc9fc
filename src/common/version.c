/*
 * PMIx_Get_version: the version string of this library.
 *
 * It starts with the OpenPMIx release we are a drop-in for, because callers
 * (e.g. Open MPI, Slurm) parse the leading number to decide which PMIx
 * features to use; the rest says what we really are.
 */
#include "config.h"

#include <pmix.h>

PMIX_EXPORT const char *PMIx_Get_version(void)
{
    return "4.2.2 (Switchyard " PACKAGE_VERSION "; PMIx Standard 5.0)";
}
