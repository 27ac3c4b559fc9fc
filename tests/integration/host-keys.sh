#!/bin/sh
# A public-API host registers a three-node, two-app job and forks the local
# clients, which check every reserved key; 1 and 4 local clients, then over
# TCP only (token authentication), then PMIx_Abort reaching the host.
set -e
dir=tests/integration  # make check runs from the top of the build tree
"$dir/test_host" -c "$dir/test_client" -n 1 -m keys
"$dir/test_host" -c "$dir/test_client" -n 4 -m keys
"$dir/test_host" -c "$dir/test_client" -n 2 -m keys -t
"$dir/test_host" -c "$dir/test_client" -n 2 -m abort
