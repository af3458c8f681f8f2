#!/bin/sh
# Record kern.data: cpu-clock samples with frame-pointer callchains of a
# command that spends its time in system calls (dd one byte at a time),
# and store what perf says about its frames when it finds the kernel's
# symbols on its own (no --kallsyms, no --symfs: /proc/kallsyms of the
# running kernel, which is the recorded one):
#
#   buildid/[kernel.kallsyms]/ID/kallsyms
#                     a build-id cache holding the lines of /proc/kallsyms
#                     the kernel frames need (and _text), where perf record
#                     keeps its copy: what names the frames on a machine
#                     running another kernel
#   kern.script.txt   perf script -F ip,sym,symoff,dso (its user frames are
#                     named from this machine's files: the tests compare
#                     only their dso)
#   kern.report.txt   perf report --no-children --sort sym -g none -n
#   kern.buildids.txt perf buildid-list
#
# Run as root:  cd testdata/perf/kern && sh record.sh
set -e
PERF=${PERF:-perf}
EMPTY="$(mktemp -d)"
$PERF record -q -N -g -e cpu-clock -c 100000 -o kern.data -- \
  dd if=/dev/zero of=/dev/null bs=1 count=10000 >/dev/null 2>&1
rm -f kern.data.old
$PERF buildid-list -i kern.data > kern.buildids.txt
id=$(awk '$2 == "[kernel.kallsyms]" { print $1 }' kern.buildids.txt)
export PERF_BUILDID_DIR="$EMPTY"
$PERF script -f -i kern.data -F ip > "$EMPTY/ips.txt" 2>/dev/null
rm -rf buildid && mkdir -p "buildid/[kernel.kallsyms]/$id"
sh ../kallsyms-for.sh "$EMPTY/ips.txt" > "buildid/[kernel.kallsyms]/$id/kallsyms"
rm -f "$EMPTY/ips.txt"
$PERF script -f -i kern.data -F ip,sym,symoff,dso > kern.script.txt 2>/dev/null
$PERF report -f -i kern.data --no-children --sort sym -g none -n --stdio \
  > kern.report.txt 2>/dev/null
rm -rf "$EMPTY"
