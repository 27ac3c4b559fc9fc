#!/bin/sh
# The same job with peers the server must refuse (wrong uid, unknown rank,
# garbage bytes, a truncated frame, a peer killed mid-handshake) started
# before the good clients, which must all still pass.
set -e
dir=tests/integration  # make check runs from the top of the build tree
"$dir/test_host" -c "$dir/test_client" -n 4 -m hostile
