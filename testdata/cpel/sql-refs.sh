#!/bin/sh
# The reference numbers for the sql/ library's CPEL queries
# (tests/sql_library.py): VPP's cpelatency and cpelstate are not packaged
# for Debian, so cpel_stats.py computes their statistics from the files'
# bytes by the format's definition and the tools' rules.
#
#     cd testdata/cpel && sh sql-refs.sh
set -e
cd "$(dirname "$0")"
python3 make_states.py states.cpel
python3 cpel_stats.py latency states.cpel > states.latency-2-1.txt
python3 cpel_stats.py latency states.cpel 3 1 > states.latency-3-1.txt
python3 cpel_stats.py state states.cpel > states.state-1.txt
python3 cpel_stats.py state states.cpel 3 > states.state-3.txt
python3 cpel_stats.py state demo.cpel 2 > demo.state-2.txt
python3 cpel_stats.py -k state states.cpel > states.state-1-kernel.txt
