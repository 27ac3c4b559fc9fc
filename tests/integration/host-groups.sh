#!/bin/sh
# The public-API host with the upcalls of groups, credentials and
# allocations, and without them; process sets it defines and deletes while
# its clients run (test_host_ops.c, test_groups.c, test_sets_creds.c).
set -e
dir=tests/integration  # make check runs from the top of the build tree
"$dir/test_host" -c "$dir/test_groups" -n 2 -m host-group
"$dir/test_host" -c "$dir/test_groups" -n 2 -m no-group
"$dir/test_host" -c "$dir/test_sets_creds" -n 2 -m host-psets
"$dir/test_host" -c "$dir/test_sets_creds" -n 2 -m host-cred
"$dir/test_host" -c "$dir/test_sets_creds" -n 2 -m host-alloc
"$dir/test_host" -c "$dir/test_sets_creds" -n 2 -m no-alloc
"$dir/test_host" -c "$dir/test_sets_creds" -n 2 -m host-upcalls
