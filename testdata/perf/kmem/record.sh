#!/bin/sh
# Record kmem.data: the kmem:kmalloc and kmem:kfree tracepoints of ls,
# whose print formats show call_site with %pS, and store what perf script
# prints for them with the kernel's symbols it finds on its own
# (/proc/kallsyms of the running kernel, the recorded one):
#
#   kmem.trace.txt   perf script -F trace
#   buildid/[kernel.kallsyms]/ID/kallsyms
#                    the lines of /proc/kallsyms those call sites need, in
#                    a build-id cache, for machines running another kernel
#
# Run as root:  cd testdata/perf/kmem && sh record.sh
set -e
PERF=${PERF:-perf}
tmp=$(mktemp -d)
$PERF record -q -N -e kmem:kmalloc -e kmem:kfree -o kmem.data -- ls / >/dev/null 2>&1
rm -f kmem.data.old
$PERF script -f -i kmem.data -F trace > kmem.trace.txt 2>/dev/null
id=$($PERF buildid-list -i kmem.data 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
# the call sites as addresses: with --symfs perf reads no kallsyms
$PERF script -f -i kmem.data --symfs="$tmp" -F trace 2>/dev/null | \
  sed -n 's/.*call_site=0x\([0-9a-f]*\).*/\1/p' | sort -u > "$tmp/ips.txt"
rm -rf buildid && mkdir -p "buildid/[kernel.kallsyms]/$id"
sh ../kallsyms-for.sh "$tmp/ips.txt" > "buildid/[kernel.kallsyms]/$id/kallsyms"
rm -rf "$tmp"
