#!/bin/sh
# What babeltrace2 says about the committed traces, for the sql/ library's
# tests (tests/sql_library.py). Needs babeltrace2 only; record.sh records
# the traces (and NAME.bt2.txt, which the event-rate test counts).
#
#   NAME.discarded.txt  babeltrace2's warnings about discarded events and
#                       lost packets (stderr of `babeltrace2 --clock-seconds`),
#                       the stream's path made relative to the trace
#   NAME.packets.txt    per packet, from `-c sink.text.details` (compact):
#                       "trace stream-class stream begin-ns end-ns events",
#                       the events being the Event messages between the
#                       packet's beginning and end messages
#
#     cd testdata/ctf && sh sql-refs.sh
set -e
cd "$(dirname "$0")"
here=$(pwd)
for t in ust-discard ust-multi; do
  babeltrace2 --clock-seconds "$t" 2>&1 >/dev/null | grep -E 'discarded|lost' | sed "s|$here/||" > "$t.discarded.txt" || true
  babeltrace2 "$t" -c sink.text.details --params compact=true,with-metadata=false,with-trace-name=false,with-stream-name=false |
    awk '/^\[/ && / Packet beginning$/ { id = $(NF-4) " " $(NF-3) " " $(NF-2); gsub(/[{}]/, "", id);
                                          b[id] = $2; gsub(/[],]/, "", b[id]); n[id] = 0 }
         /^\[/ && / Event `/ { id = $3 " " $4 " " $5; gsub(/[{}]/, "", id); n[id]++ }
         /^\[/ && / Packet end$/ { id = $(NF-4) " " $(NF-3) " " $(NF-2); gsub(/[{}]/, "", id);
                                   e = $2; gsub(/[],]/, "", e); print id, b[id], e, n[id] }' > "$t.packets.txt"
done
