#!/bin/sh
# Records the cyg-named trace: ../cyg-profile/cyg.c built with
# -finstrument-functions as a position-independent program at
# /opt/tracelite-cyg/cyg, run under an LTTng-UST session with
# liblttng-ust-cyg-profile.so preloaded: lttng_ust_cyg_profile:func_entry
# and func_exit, and the statedump (lttng_ust_statedump:*) that says where
# the program was loaded; vpid and vtid contexts. Run as root on Debian 12
# with lttng-tools, liblttng-ust-dev and babeltrace2.
#
#   trace/          the CTF trace
#   symfs/          the program at the path the trace names it by
#   trace.bt2.txt   babeltrace2 --clock-seconds --no-delta --fields=emf trace
#   cyg.nm.txt      nm of the program (its functions' addresses in the file)
#   names.txt       per function entered, "COUNT NAME": each func_entry's
#                   addr less the program's baddr (its bin_info event),
#                   named by cyg.nm.txt, counted (the calls' names)
set -e
cd "$(dirname "$0")"
HERE=$PWD
D=/opt/tracelite-cyg
CC=${CC:-cc}
rm -rf "$D" trace symfs && mkdir -p "$D" "symfs$D"
cp ../cyg-profile/cyg.c "$D/"
(cd "$D" && $CC -O0 -g -fdebug-prefix-map="$D=." -finstrument-functions -o cyg cyg.c -lpthread)
pgrep -x lttng-sessiond >/dev/null || { lttng-sessiond --daemonize; sleep 1; }
lttng create tl-cyg-named --output="$HERE/trace" >/dev/null
lttng enable-event -u 'lttng_ust_cyg_profile*,lttng_ust_statedump:*' >/dev/null
lttng add-context -u -t vtid -t vpid >/dev/null
lttng start >/dev/null
LD_PRELOAD=liblttng-ust-cyg-profile.so "$D/cyg"
lttng stop >/dev/null
lttng destroy >/dev/null
cp "$D/cyg" "symfs$D/"
babeltrace2 --clock-seconds --no-delta --fields=emf trace >trace.bt2.txt
nm "$D/cyg" | grep -i ' t ' | sort >cyg.nm.txt
rm -rf "$D"
BADDR=$(grep 'lttng_ust_statedump:bin_info' trace.bt2.txt | grep "path = \"$D/cyg\"" \
        | sed 's/.*baddr = \(0x[0-9A-F]*\).*/\1/' | head -1)
grep 'lttng_ust_cyg_profile:func_entry' trace.bt2.txt | sed 's/.*addr = \(0x[0-9A-F]*\),.*/\1/' \
  | while read A; do
      printf '%016x\n' $((A - BADDR))
    done | awk 'NR==FNR { name[$1] = $3; next } { print name[$1] }' cyg.nm.txt - \
  | sort | uniq -c | sed 's/^ *//' >names.txt
