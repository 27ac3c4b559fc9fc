/*
 * Switchyard -- screening of received hwloc XML topologies (topo_xml.c).
 */
#ifndef SY_COMMON_TOPO_XML_H
#define SY_COMMON_TOPO_XML_H

#include <stdbool.h>
#include <stddef.h>

/* Largest PU / NUMA node index accepted from a peer, in a topology or a
 * cpuset list: hwloc sizes its bitmaps by the highest index.  1M CPUs is
 * far beyond any machine. */
#define SY_TOPO_MAX_INDEX 1048575UL

/* True if hwloc may import this XML (len bytes, NUL included or not)
 * without being driven into huge allocations. */
bool sy_topo_xml_ok(const char *xml, size_t len);

#endif /* SY_COMMON_TOPO_XML_H */
