#!/bin/sh
# README command 1: build everything, then run the main job.
# For now the main job is switchyard-info, which loads our libpmix.so.2 and
# prints its version, build options and the data types it knows.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/build.sh
echo
echo "== build/tools/switchyard-info"
build/tools/switchyard-info
