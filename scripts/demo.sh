#!/bin/sh
# README command 1: build everything, then run the main job.
# The main job:
#   1. switchyard-info: loads our libpmix.so.2 and prints its version, build
#      options and the data types it knows;
#   2. switchyard-run: a small two-app PMIx job on this machine (pmix-hello,
#      each rank printing what the launcher registered about it);
#   3. a fabric report: switchyard-fabric on a generated 3-level fat tree
#      (summary, groups and a PNG heatmap of the cost matrix in build/).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/build.sh
echo
echo "== build/tools/switchyard-info"
build/tools/switchyard-info
echo
echo "== build/tools/switchyard-run --oversubscribe -n 2 pmix-hello : -n 1 pmix-hello"
build/tools/switchyard-run --oversubscribe -n 2 build/tools/examples/pmix-hello : \
    -n 1 build/tools/examples/pmix-hello
echo
echo "== build/tools/switchyard-fabric --generate fattree:k=8"
build/tools/switchyard-fabric --generate fattree:k=8 \
    --groups build/fattree-k8.groups --png build/fattree-k8.png
echo "(groups string in build/fattree-k8.groups, cost heatmap in build/fattree-k8.png)"
