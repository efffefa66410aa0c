#!/bin/sh
# matrix.sh - the kernel matrix (`make kernels`): boot each of Debian's
# kernels (boot.sh), where guest.sh runs its tests as root, as
# cordon-test and as cordon-test with user namespaces off, then hold the
# results to issue 29's expectations (judge.py): the tables, one line
# per failure, OUT written (and README's guarantee table, after a run
# of all the rows).
#
#   matrix.sh BUILD OUT.md [README.md]
#                                 $KERNELS picks rows (default all:
#                                 "5.10 6.1 6.1-nolandlock 6.12 7",
#                                 boot.sh's keys)
#
# Exit 1 when any expectation fails (judge.py says which), 0 otherwise.
# Consoles are kept in BUILD/kernels/KEY.log.
set -u

build=$(cd "${1:?usage: matrix.sh BUILD OUT}" && pwd)
out=${2:?usage: matrix.sh BUILD OUT}
here=$(cd "$(dirname "$0")" && pwd)
readme=${3:-}
# A subset leaves the README's table as it is.
[ -z "${KERNELS:-}" ] || readme=
kernels=${KERNELS:-5.10 6.1 6.1-nolandlock 6.12 7}
# The judge first shows that each expectation can fail (forged consoles).
python3 "$here/judge.py" --selftest || exit 1
mkdir -p "$build/kernels"
runs="$build/kernels/runs"
: >"$runs"

for k in $kernels; do
	log="$build/kernels/$k.log"
	t0=$(date +%s)
	"$here/boot.sh" "$k" "$build" "$log"
	booted=$?
	echo "$k $log $(($(date +%s) - t0)) $booted" >>"$runs"
done
exec python3 "$here/judge.py" "$runs" "$out" ${readme:+"$readme"}
