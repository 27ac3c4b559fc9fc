"""A PMIx client in Python (Debian's python3-pmix, the Cython bindings of
OpenPMIx 4.2.2) running on Switchyard's libpmix.so.2, or on Debian's (then
speaking OpenPMIx's protocol to our server), under switchyard-run:
init, job keys, put/commit/fence, a peer's key, finalize.  Prints
"python rank N: ok" when every check held; each failure is a FAIL line."""
import os
import socket
import sys

from pmix import *

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL(python): %s" % msg, file=sys.stderr, flush=True)


def value_of(rc, val, what):
    if rc != PMIX_SUCCESS:
        fail("%s: %s" % (what, rc))
        return None
    return val['value']


client = PMIxClient()
rc, me = client.init([])
if rc != PMIX_SUCCESS:
    fail("PMIx_Init: %d" % rc)
    sys.exit(1)
job = {'nspace': me['nspace'], 'rank': PMIX_RANK_WILDCARD}

if me['nspace'] != os.environ.get('PMIX_NAMESPACE') or \
        me['rank'] != int(os.environ.get('PMIX_RANK', '-1')):
    fail("identity %s differs from the launcher's" % me)
size = value_of(*client.get(job, PMIX_JOB_SIZE, []), "Get PMIX_JOB_SIZE")
if size != 2:
    fail("job size %s, not 2" % size)
rank = value_of(*client.get(me, PMIX_RANK, []), "Get PMIX_RANK")
if rank != me['rank']:
    fail("PMIX_RANK %s, not %d" % (rank, me['rank']))
host = value_of(*client.get(me, PMIX_HOSTNAME, []), "Get PMIX_HOSTNAME")
if host != socket.gethostname():
    fail("hostname %s, not %s" % (host, socket.gethostname()))
local = value_of(*client.get(me, PMIX_LOCAL_RANK, []), "Get PMIX_LOCAL_RANK")
if local != me['rank']:
    fail("local rank %s, not %d" % (local, me['rank']))
nodes = value_of(*client.get(job, PMIX_NUM_NODES, []), "Get PMIX_NUM_NODES")
if nodes != 1:
    fail("%s nodes, not 1" % nodes)

rc = client.put(PMIX_GLOBAL, "py.key",
                {'value': "from-python-%d" % me['rank'], 'val_type': PMIX_STRING})
if rc != PMIX_SUCCESS:
    fail("PMIx_Put: %d" % rc)
rc = client.commit()
if rc != PMIX_SUCCESS:
    fail("PMIx_Commit: %d" % rc)
rc = client.fence([], [{'key': PMIX_COLLECT_DATA, 'value': True, 'val_type': PMIX_BOOL}])
if rc != PMIX_SUCCESS:
    fail("PMIx_Fence: %d" % rc)
peer = {'nspace': me['nspace'], 'rank': 1 - me['rank']}
got = value_of(*client.get(peer, "py.key", []), "Get of the peer's key")
if got != "from-python-%d" % peer['rank']:
    fail("the peer's key is %s" % got)

rc = client.finalize([])
if rc != PMIX_SUCCESS:
    fail("PMIx_Finalize: %d" % rc)
if os.environ.get('SY_PY_MAPS'):
    # which libpmix.so.2 this process runs on (the test wants one or the other)
    with open("/proc/self/maps") as maps:
        for path in sorted({l.split()[-1] for l in maps if "/libpmix.so" in l}):
            print("python rank %d libpmix %s" % (me['rank'], path), flush=True)
if failures == 0:
    print("python rank %d: ok" % me['rank'], flush=True)
sys.exit(1 if failures else 0)
