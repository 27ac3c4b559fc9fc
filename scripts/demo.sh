#!/bin/sh
# README command 1: build everything, then run the main job.
# Until the launcher exists (docs/architecture.md), the main job is:
#   1. switchyard-info: loads our libpmix.so.2 and prints its version, build
#      options and the data types it knows;
#   2. a fabric report: switchyard-fabric on a generated 3-level fat tree
#      (summary, groups and a PNG heatmap of the cost matrix in build/).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/build.sh
echo
echo "== build/tools/switchyard-info"
build/tools/switchyard-info
echo
echo "== build/tools/switchyard-fabric --generate fattree:k=8"
build/tools/switchyard-fabric --generate fattree:k=8 \
    --groups build/fattree-k8.groups --png build/fattree-k8.png
echo "(groups string in build/fattree-k8.groups, cost heatmap in build/fattree-k8.png)"
