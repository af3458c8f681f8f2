#!/bin/sh
# Records the syscalls trace: perf's syscalls:sys_enter_X/sys_exit_X
# tracepoints of a few system calls of a small shell command, converted to
# CTF by perf data convert --to-ctf. Run as root with perf (built with
# libbabeltrace) and babeltrace2.
#
#   ctf/          the CTF trace
#   ctf.bt2.txt   babeltrace2 --clock-seconds --no-delta --fields=emf ctf
#                 (the reference for the calls: tests/test_calls.c)
set -e
cd "$(dirname "$0")"
E=""
for s in read write openat close mmap brk newfstatat execve nanosleep clock_nanosleep; do
  E="$E -e syscalls:sys_enter_$s -e syscalls:sys_exit_$s"
done
perf record -q $E -o sys.data -- sh -c 'cat /proc/self/stat >/dev/null; sleep 0.01'
rm -rf ctf
perf data convert -i sys.data --to-ctf ctf
babeltrace2 --clock-seconds --no-delta --fields=emf ctf >ctf.bt2.txt
rm -f sys.data sys.data.old
