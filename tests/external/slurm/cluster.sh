# A private Slurm 22.05 cluster on this machine, sourced by
# tests/external/slurm.sh and bench/slurm-compare.sh (POSIX sh).
#
# One network namespace for the head (slurmctld, srun) and one per node
# (slurmd, its slurmstepds and tasks), joined by veth pairs on a bridge in
# the head's namespace; each daemon also gets its own UTS namespace (its
# hostname) and mount namespace, where a private /etc/hosts and, for
# LIB=ours, our libpmix.so.2 are bind-mounted over the installed files.
# Nothing installed is changed and nothing outside the namespaces sees the
# swap.  munged runs in the root namespace (its socket is a path under the
# base directory).  Every process of the cluster except munged lives in one
# of its network namespaces, so stopping it kills exactly those
# (`ip netns pids`) and munged by its pid; ports are private to the
# namespaces and never collide with another cluster.
#
#   sy_cluster_start BASE NODES LIB   LIB: ours (the library file $SY_LIB)
#                                     or openpmix (Debian's, untouched)
#   sy_srun ARGS...                   srun in the head's namespace
#   sy_cluster_stop                   stop and remove everything started
#
# SY_SLURMD_ENV (VAR=VALUE words) is slurmd's environment, and so its
# slurmstepds'; SY_SLURMD_WRAP a command slurmd runs under.
#
# Needs root, unshare/nsenter (util-linux) and ip (iproute2).  Functions
# return non-zero with a message in $sy_cluster_error when the setup fails.

SY_PMIX_REAL=/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2.6.2

sy_cluster_error=
sy_ns_list=
sy_munged_pid=
sy_daemon_pids=

# sy_ns NAME COMMAND...: run in the network namespace NAME
sy_ns() {
    _n=$1
    shift
    nsenter --net="/run/netns/$_n" "$@"
}

# sy_cluster_start BASE NODES LIB
sy_cluster_start() {
    SY_BASE=$1
    SY_NODES=$2
    SY_LIBMODE=$3
    # short, unique namespace names (several clusters may run at once)
    SY_NSP="sy$$$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
    SY_NSP=$(printf '%.12s' "$SY_NSP")
    SLURM_CONF=$SY_BASE/etc/slurm.conf
    export SLURM_CONF
    mkdir -p "$SY_BASE/etc" "$SY_BASE/munge" "$SY_BASE/log" "$SY_BASE/run" \
        "$SY_BASE/state" "$SY_BASE/spool" || return 1
    chmod 700 "$SY_BASE/munge"
    if [ "$SY_LIBMODE" = ours ] && ! [ -f "$SY_LIB" ]; then
        sy_cluster_error="no library to bind-mount ($SY_LIB)"
        return 1
    fi
    _nodes=
    _k=1
    while [ $_k -le "$SY_NODES" ]; do
        mkdir -p "$SY_BASE/tmp/n$_k" "$SY_BASE/spool/n$_k"
        _nodes="$_nodes n$_k"
        _k=$((_k + 1))
    done
    {
        echo "127.0.0.1 localhost"
        echo "10.77.0.1 head"
        for _n in $_nodes; do echo "10.77.0.$((10 + ${_n#n})) $_n"; done
    } > "$SY_BASE/etc/hosts"

    # -- network namespaces --
    if ! ip netns add "${SY_NSP}h" 2> "$SY_BASE/log/netns"; then
        sy_cluster_error="cannot create a network namespace: $(cat "$SY_BASE/log/netns")"
        return 1
    fi
    sy_ns_list="${SY_NSP}h"
    ip -n "${SY_NSP}h" link set lo up &&
        ip -n "${SY_NSP}h" link add br0 type bridge &&
        ip -n "${SY_NSP}h" addr add 10.77.0.1/24 dev br0 &&
        ip -n "${SY_NSP}h" link set br0 up || {
        sy_cluster_error="cannot set up the head's network"
        return 1
    }
    for _n in $_nodes; do
        ip netns add "${SY_NSP}$_n" || {
            sy_cluster_error="cannot create a network namespace"
            return 1
        }
        sy_ns_list="$sy_ns_list ${SY_NSP}$_n"
        ip -n "${SY_NSP}$_n" link set lo up &&
            ip -n "${SY_NSP}h" link add "v$_n" type veth peer name eth0 netns "${SY_NSP}$_n" &&
            ip -n "${SY_NSP}$_n" addr add "10.77.0.$((10 + ${_n#n}))/24" dev eth0 &&
            ip -n "${SY_NSP}$_n" link set eth0 up &&
            ip -n "${SY_NSP}h" link set "v$_n" master br0 &&
            ip -n "${SY_NSP}h" link set "v$_n" up || {
            sy_cluster_error="cannot wire node $_n"
            return 1
        }
    done

    # -- configuration --
    cat > "$SLURM_CONF" << EOF
ClusterName=sy$SY_NODES
SlurmctldHost=head(10.77.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=17817
SlurmdPort=17818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SY_BASE/munge/munge.socket.2
StateSaveLocation=$SY_BASE/state
SlurmdSpoolDir=$SY_BASE/spool/%n
SlurmctldPidFile=$SY_BASE/run/slurmctld.pid
SlurmdPidFile=$SY_BASE/run/slurmd-%n.pid
SlurmctldLogFile=$SY_BASE/log/slurmctld.log
SlurmdLogFile=$SY_BASE/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=2
TmpFS=$SY_BASE/tmp/%n
# Slurm 22.05 computes the PMIx fence tree with TreeWidth: a width above
# the number of nodes makes every node its own root (docs/slurm.md).
TreeWidth=$SY_NODES
EOF
    for _n in $_nodes; do
        echo "NodeName=$_n NodeAddr=10.77.0.$((10 + ${_n#n})) CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN" >> "$SLURM_CONF"
    done
    echo "PartitionName=debug Nodes=$(echo $_nodes | tr ' ' ',') Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4" >> "$SLURM_CONF"
    printf 'PMIxDebug=0\nPMIxTimeout=60\n' > "$SY_BASE/etc/mpi.conf"

    # -- munge --
    dd if=/dev/urandom of="$SY_BASE/munge/munge.key" bs=1024 count=1 2> /dev/null
    chmod 400 "$SY_BASE/munge/munge.key"
    munged --force --key-file="$SY_BASE/munge/munge.key" \
        --socket="$SY_BASE/munge/munge.socket.2" --pid-file="$SY_BASE/munge/munged.pid" \
        --log-file="$SY_BASE/log/munged.log" --seed-file="$SY_BASE/munge/munged.seed" \
        > "$SY_BASE/log/munged.out" 2>&1 || {
        sy_cluster_error="munged did not start: $(cat "$SY_BASE/log/munged.out")"
        return 1
    }
    _t=0
    while ! [ -s "$SY_BASE/munge/munged.pid" ] || ! [ -S "$SY_BASE/munge/munge.socket.2" ]; do
        _t=$((_t + 1))
        [ $_t -gt 100 ] && { sy_cluster_error="munged has no socket"; return 1; }
        sleep 0.1
    done
    sy_munged_pid=$(cat "$SY_BASE/munge/munged.pid")

    # -- daemons, in the foreground (-D) so that $! is the daemon --
    _swap=
    if [ "$SY_LIBMODE" = ours ]; then
        _swap="mount --bind '$SY_LIB' '$SY_PMIX_REAL' &&"
    fi
    # (nsenter itself, not sy_ns: $! must be the daemon, not a subshell)
    nsenter --net="/run/netns/${SY_NSP}h" unshare --uts --mount --propagation private sh -c \
        "mount --bind '$SY_BASE/etc/hosts' /etc/hosts && hostname head && exec slurmctld -D -i -f '$SLURM_CONF'" \
        > "$SY_BASE/log/slurmctld.out" 2>&1 &
    sy_daemon_pids="$!"
    for _n in $_nodes; do
        # SY_SLURMD_WRAP: a command slurmd runs under (@NODE@: its name)
        _wrap=$(echo "${SY_SLURMD_WRAP:-}" | sed "s/@NODE@/$_n/g")
        nsenter --net="/run/netns/${SY_NSP}$_n" env ${SY_SLURMD_ENV:-} \
            unshare --uts --mount --propagation private sh -c \
            "mount --bind '$SY_BASE/etc/hosts' /etc/hosts && $_swap hostname $_n && exec $_wrap slurmd -D -f '$SLURM_CONF'" \
            > "$SY_BASE/log/slurmd-$_n.out" 2>&1 &
        sy_daemon_pids="$sy_daemon_pids $!"
    done
    _t=0
    while [ "$(sy_ns "${SY_NSP}h" sinfo -h -o '%T %D' 2> /dev/null)" != "idle $SY_NODES" ]; do
        _t=$((_t + 1))
        if [ $_t -gt 300 ]; then
            sy_cluster_error="the nodes did not become idle: $(sy_ns "${SY_NSP}h" sinfo 2>&1 | tail -3)"
            return 1
        fi
        for _p in $sy_daemon_pids; do
            kill -0 "$_p" 2> /dev/null || {
                sy_cluster_error="a Slurm daemon died at start-up: $(cat "$SY_BASE"/log/*.out | tail -5)"
                return 1
            }
        done
        sleep 0.1
    done
    return 0
}

# The pid of node N's slurmd (N = 1, 2, ...; slurmctld comes first).
sy_slurmd_pid() {
    echo "$sy_daemon_pids" | awk -v n="$1" '{ print $(n + 1) }'
}

sy_srun() {
    sy_ns "${SY_NSP}h" srun "$@"
}

# sy_cluster_stop: TERM, then KILL, to every process in the cluster's
# namespaces (the daemons, stepds and tasks: all ours) and to munged.
# Safe under set -e (callers' EXIT traps run it).
sy_cluster_stop() {
    if [ -n "$sy_ns_list" ]; then
        sy_ns "${SY_NSP}h" scancel --user=root > /dev/null 2>&1 || true
    fi
    _all() {
        for _ns in $sy_ns_list; do ip netns pids "$_ns" 2> /dev/null || true; done
        if [ -n "$sy_munged_pid" ] && kill -0 "$sy_munged_pid" 2> /dev/null; then
            echo "$sy_munged_pid"
        fi
    }
    _pids=$(_all)
    [ -z "$_pids" ] || kill -TERM $_pids 2> /dev/null || true
    _t=0
    while [ -n "$(_all)" ] && [ $_t -lt 100 ]; do
        sleep 0.1
        _t=$((_t + 1))
    done
    _pids=$(_all)
    [ -z "$_pids" ] || kill -KILL $_pids 2> /dev/null || true
    for _p in $sy_daemon_pids; do wait "$_p" 2> /dev/null || true; done
    for _ns in $sy_ns_list; do ip netns del "$_ns" 2> /dev/null || true; done
    sy_ns_list=
    sy_daemon_pids=
    sy_munged_pid=
}
