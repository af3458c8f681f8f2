#!/bin/sh
# refs.sh: writes the trace (write.py: kernel/) and lttng-analyses' outputs
# for it (NAME.txt), the references of tests/sql_library.py. Needs
# python3-lttnganalyses (0.6.1), run with Debian's /usr/bin/python3.
# --gmt: the time range printed in UTC, whatever the machine's zone.
set -e
cd "$(dirname "$0")"
/usr/bin/python3 write.py
for tool in syscallstats cputop schedstats irqstats; do
  /usr/bin/python3 /usr/bin/lttng-$tool --no-progress --no-intersection --gmt kernel > $tool.txt 2>&1
done
