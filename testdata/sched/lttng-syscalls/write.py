#!/usr/bin/python3
"""write.py: a small LTTng kernel trace (kernel/) with system calls, written
byte by byte where lttng-modules cannot record (no kernel tracer on the
machine the tests were made on).

The metadata has lttng-modules 2.13's shape (x86-64): its env (domain
"kernel", tracer_name "lttng-modules", tracer_major/minor/patchlevel, which
lttng-analyses reads from a directory named kernel), its packet header and
context, its large event header (always the extended form here) and its
events' fields (names with the leading underscore lttng-modules writes).
Two CPUs, one packet each (channel0_0, channel0_1), times in ns.

The events (TIMELINE below) exercise what lttng-analyses' pairing of
system calls meets in real traces: an exit whose entry came before the
trace began, calls before their CPU's first sched_switch (no thread known),
errors (negative returns), an exit of another call than the entry's (as
after lost records), entries never left (exit_group, a call still running
at the end), clone's exit in the child without an entry, a thread renamed
by exec (sched_process_exec) and by prctl(PR_SET_NAME) (seen in the next
sched_switch's comm), a state dump naming the threads, and a few hard and
soft IRQs (one entered again on its CPU before its exit: an exit pairs
with the latest entry).

    /usr/bin/python3 write.py    # (re)writes kernel/
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "kernel")
UUID = bytes(range(0x10, 0x20))
MAGIC = 0xC1FC1FC1
T0 = 1_700_000_000 * 10**9      # the clock's offset (offset_s below)

# field kinds: (metadata declaration, struct format or writer)
I32 = ("integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; }", "<i")
U32 = ("integer { size = 32; align = 8; signed = 0; encoding = none; base = 10; }", "<I")
I64 = ("integer { size = 64; align = 8; signed = 1; encoding = none; base = 10; }", "<q")
U64 = ("integer { size = 64; align = 8; signed = 0; encoding = none; base = 10; }", "<Q")
X64 = ("integer { size = 64; align = 8; signed = 0; encoding = none; base = 16; }", "<Q")
COMM = ("integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; }", "comm")
STR = ("string", "str")

SYS_ENTRY = {   # lttng-modules 2.13's x86-64 fields of each call we use
    "read": [("fd", U32), ("count", U64)],
    "write": [("fd", U32), ("buf", X64), ("count", U64)],
    "openat": [("dfd", I32), ("filename", STR), ("flags", I32), ("mode", U32)],
    "close": [("fd", U32)],
    "getpid": [],
    "clone": [("clone_flags", X64), ("newsp", X64), ("parent_tid", X64), ("child_tid", X64)],
    "execve": [("filename", STR), ("argv", X64), ("envp", X64)],
    "wait4": [("upid", I32), ("options", I32), ("ru", X64)],
    "futex": [("uaddr", X64), ("op", I32), ("val", U32), ("utime", X64), ("uaddr2", X64), ("val3", U32)],
    "prctl": [("option", I32), ("arg2", U64), ("arg3", U64), ("arg4", U64), ("arg5", U64)],
    "nanosleep": [("rqtp", X64)],
    "epoll_wait": [("epfd", I32), ("maxevents", I32), ("timeout", I32)],
    "exit_group": [("error_code", I32)],
}
SYS_EXIT = {
    "read": [("ret", I64), ("buf", X64)],
    "wait4": [("ret", I64), ("stat_addr", X64), ("ru", X64)],
    "nanosleep": [("ret", I64), ("rmtp", X64)],
    "epoll_wait": [("ret", I64), ("events", X64)],
}

EVENTS = {
    "sched_switch": [("prev_comm", COMM), ("prev_tid", I32), ("prev_prio", I32), ("prev_state", I64),
                     ("next_comm", COMM), ("next_tid", I32), ("next_prio", I32)],
    "sched_wakeup": [("comm", COMM), ("tid", I32), ("prio", I32), ("target_cpu", I32)],
    "sched_wakeup_new": [("comm", COMM), ("tid", I32), ("prio", I32), ("target_cpu", I32)],
    "sched_process_fork": [("parent_comm", COMM), ("parent_tid", I32), ("parent_pid", I32),
                           ("child_comm", COMM), ("child_tid", I32), ("child_pid", I32)],
    "sched_process_exec": [("filename", STR), ("tid", I32), ("old_tid", I32)],
    "sched_process_exit": [("comm", COMM), ("tid", I32), ("prio", I32)],
    "lttng_statedump_process_state": [("tid", I32), ("vtid", I32), ("pid", I32), ("vpid", I32),
                                      ("ppid", I32), ("vppid", I32), ("name", COMM), ("type", I32),
                                      ("mode", I32), ("submode", I32), ("status", I32), ("cpu", I32)],
    "irq_handler_entry": [("irq", I32), ("name", STR)],
    "irq_handler_exit": [("irq", I32), ("ret", I32)],
    "softirq_raise": [("vec", U32)],
    "softirq_entry": [("vec", U32)],
    "softirq_exit": [("vec", U32)],
}
for _n, _f in SYS_ENTRY.items():
    EVENTS["syscall_entry_" + _n] = _f
    EVENTS["syscall_exit_" + _n] = SYS_EXIT.get(_n, [("ret", I64)])

# -- the timeline: (ns since the clock's offset, cpu, event, fields) -----

R, S, DEAD = 0, 1, 16           # prev_state: runnable (preempted), sleeping, dead


def sw(ts, cpu, prev, pcomm, state, nxt, ncomm):
    return (ts, cpu, "sched_switch", dict(prev_comm=pcomm, prev_tid=prev, prev_prio=20, prev_state=state,
                                          next_comm=ncomm, next_tid=nxt, next_prio=20))


def call(ts, cpu, name, dur, ret, **args):
    """A call's entry at ts and its exit dur ns later (dur None: no exit)."""
    ev = [(ts, cpu, "syscall_entry_" + name, args)]
    if dur is not None:
        ev.append((ts + dur, cpu, "syscall_exit_" + name, dict(ret=ret)))
    return ev


def dump(ts, tid, pid, ppid, name):
    return (ts, 0, "lttng_statedump_process_state",
            dict(tid=tid, vtid=tid, pid=pid, vpid=pid, ppid=ppid, vppid=ppid, name=name,
                 type=0, mode=5, submode=0, status=5, cpu=0))


US = 1000
TIMELINE = [
    # CPU 1 before its first sched_switch: no thread known, not counted
    *call(500 * US, 1, "getpid", 20 * US + 3, 200),
    # the state dump: bash (100), server (200) and its thread 201
    dump(1000 * US, 100, 100, 1, "bash"), dump(1000 * US + 500, 200, 200, 1, "server"),
    dump(1000 * US + 900, 201, 200, 1, "server"),
    # CPU 1: a kworker runs briefly
    sw(1500 * US, 1, 0, "swapper/1", R, 50, "kworker/1:1"),
    sw(1600 * US + 77, 1, 50, "kworker/1:1", S, 0, "swapper/1"),
    # CPU 0: bash
    sw(2000 * US, 0, 0, "swapper/0", R, 100, "bash"),
    (2100 * US, 0, "syscall_exit_read", dict(ret=5)),          # entered before the trace began
    *call(2200 * US, 0, "write", 31 * US + 417, 12, fd=1, count=12),
    *call(2400 * US, 0, "openat", 77 * US + 1, 3, dfd=-100, filename="/etc/passwd", flags=0, mode=0),
    *call(2500 * US, 0, "read", 80 * US + 250, 1024, fd=3, count=4096),
    (2550 * US, 0, "irq_handler_entry", dict(irq=16, name="eth0")),
    (2550 * US + 4321, 0, "irq_handler_exit", dict(irq=16, ret=1)),
    (2551 * US, 0, "softirq_raise", dict(vec=3)),
    (2556 * US + 100, 0, "softirq_entry", dict(vec=3)),
    (2560 * US + 9, 0, "softirq_exit", dict(vec=3)),
    *call(2600 * US, 0, "read", 5 * US + 500, 0, fd=3, count=4096),
    *call(2700 * US, 0, "close", 10 * US + 1, 0, fd=3),
    *call(2800 * US, 0, "openat", 9 * US + 999, -2, dfd=-100, filename="/nonexistent", flags=0, mode=0),
    *call(2900 * US, 0, "close", 2 * US + 2, -9, fd=42),                      # EBADF
    (3000 * US, 0, "syscall_entry_clone", dict(clone_flags=0x1200011)),
    (3005 * US, 0, "sched_process_fork", dict(parent_comm="bash", parent_tid=100, parent_pid=100,
                                              child_comm="bash", child_tid=300, child_pid=300)),
    (3010 * US, 0, "sched_wakeup_new", dict(comm="bash", tid=300, prio=120, target_cpu=1)),
    (3050 * US + 31, 0, "syscall_exit_clone", dict(ret=300)),
    (3100 * US, 0, "syscall_entry_wait4", dict(upid=-1, options=0)),
    sw(3110 * US, 0, 100, "bash", S, 200, "server"),
    # CPU 0: server (200) and its thread (201, renamed worker by prctl)
    (3120 * US, 0, "syscall_exit_futex", dict(ret=0)),         # entered before the trace began
    *call(3150 * US, 0, "read", 10 * US + 5, -11, fd=5, count=64),            # EAGAIN
    (3200 * US, 0, "syscall_entry_read", dict(fd=5, count=64)),
    (3260 * US + 40, 0, "syscall_exit_write", dict(ret=7)),   # another call's exit: counted as read
    (3300 * US, 0, "syscall_entry_futex", dict(op=0, val=1)),
    sw(3320 * US, 0, 200, "server", S, 201, "server"),
    *call(3330 * US, 0, "prctl", 10 * US + 10, 0, option=15, arg2=0x7ffd0000),  # PR_SET_NAME
    *call(3400 * US, 0, "futex", 5 * US + 5, 1, op=1, val=1),
    (3445 * US, 0, "sched_wakeup", dict(comm="server", tid=200, prio=120, target_cpu=0)),
    sw(3450 * US, 0, 201, "worker", S, 200, "server"),
    (3460 * US + 7, 0, "syscall_exit_futex", dict(ret=0)),
    (3500 * US, 0, "syscall_entry_nanosleep", dict(rqtp=0x7ffd1000)),
    sw(3510 * US, 0, 200, "server", S, 0, "swapper/0"),
    (3990 * US, 0, "sched_wakeup", dict(comm="worker", tid=201, prio=120, target_cpu=0)),
    sw(4000 * US, 0, 0, "swapper/0", R, 201, "worker"),
    *call(4010 * US, 0, "getpid", 2 * US + 222, 200),
    (4100 * US, 0, "syscall_entry_exit_group", dict(error_code=0)),
    (4110 * US, 0, "sched_process_exit", dict(comm="worker", tid=201, prio=120)),
    sw(4120 * US, 0, 201, "worker", DEAD, 0, "swapper/0"),
    (4200 * US, 0, "sched_wakeup", dict(comm="server", tid=200, prio=120, target_cpu=0)),
    sw(4210 * US + 333, 0, 0, "swapper/0", R, 200, "server"),
    (4215 * US, 0, "syscall_exit_nanosleep", dict(ret=0)),
    *call(4300 * US, 0, "epoll_wait", None, None, epfd=4, maxevents=8, timeout=-1),  # running at the end
    # CPU 1: the child (300) execs ls
    sw(3030 * US, 1, 0, "swapper/1", R, 300, "bash"),
    (3035 * US, 1, "syscall_exit_clone", dict(ret=0)),         # the child's exit: no entry
    (3060 * US, 1, "syscall_entry_execve", dict(filename="/bin/ls")),
    (3090 * US, 1, "sched_process_exec", dict(filename="/bin/ls", tid=300, old_tid=300)),
    (3100 * US + 123, 1, "syscall_exit_execve", dict(ret=0)),
    *call(3200 * US, 1, "openat", 30 * US + 3, 3, dfd=-100, filename="/etc/ld.so.cache", flags=0x80000, mode=0),
    *call(3250 * US, 1, "read", 20 * US + 17, 832, fd=3, count=832),
    *call(3300 * US, 1, "write", 33 * US + 333, 20, fd=1, count=20),
    *call(3400 * US, 1, "write", 10 * US + 1, -32, fd=2, count=10),          # EPIPE
    (3500 * US, 1, "syscall_entry_exit_group", dict(error_code=0)),
    (3505 * US, 1, "sched_process_exit", dict(comm="ls", tid=300, prio=120)),
    (3515 * US, 1, "sched_wakeup", dict(comm="bash", tid=100, prio=120, target_cpu=1)),
    sw(3520 * US, 1, 300, "ls", DEAD, 100, "bash"),
    # CPU 1: bash again, its wait4 ends
    (3540 * US + 9, 1, "syscall_exit_wait4", dict(ret=300)),
    *call(3600 * US, 1, "write", 12 * US + 6, 2, fd=1, count=2),
    *call(3700 * US, 1, "write", 90 * US + 90, 2, fd=1, count=2),
    (3800 * US, 1, "syscall_entry_read", dict(fd=0, count=1)),
    sw(3810 * US, 1, 100, "bash", S, 0, "swapper/1"),
    (4400 * US, 1, "irq_handler_entry", dict(irq=16, name="eth0")),
    (4400 * US + 2500, 1, "irq_handler_exit", dict(irq=16, ret=1)),
    (4401 * US, 1, "irq_handler_entry", dict(irq=16, name="eth0")),   # again before its exit
    (4401 * US + 6001, 1, "irq_handler_exit", dict(irq=16, ret=1)),
]

# -- metadata ------------------------------------------------------------

NAMES = sorted(EVENTS)
IDS = {n: i for i, n in enumerate(NAMES)}


def decl(name, kind):
    if kind is STR:
        return "\t\tstring _%s;" % name
    if kind is COMM:
        return "\t\t%s _%s[16];" % (kind[0], name)
    return "\t\t%s _%s;" % (kind[0], name)


def metadata():
    out = ['/* CTF 1.8 */', '',
           'typealias integer { size = 8; align = 8; signed = false; } := uint8_t;',
           'typealias integer { size = 16; align = 8; signed = false; } := uint16_t;',
           'typealias integer { size = 32; align = 8; signed = false; } := uint32_t;',
           'typealias integer { size = 64; align = 8; signed = false; } := uint64_t;',
           'typealias integer { size = 64; align = 8; signed = false; } := unsigned long;', '',
           'trace {', '\tmajor = 1;', '\tminor = 8;',
           '\tuuid = "%s";' % "-".join(UUID.hex()[a:b] for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))),
           '\tbyte_order = le;',
           '\tpacket.header := struct {', '\t\tuint32_t magic;', '\t\tuint8_t  uuid[16];',
           '\t\tuint32_t stream_id;', '\t\tuint64_t stream_instance_id;', '\t};', '};', '',
           'env {', '\thostname = "synthetic";', '\tdomain = "kernel";', '\tsysname = "Linux";',
           '\tkernel_release = "6.1.0-synthetic";', '\tkernel_version = "#1 SMP";',
           '\ttracer_name = "lttng-modules";', '\ttracer_major = 2;', '\ttracer_minor = 13;',
           '\ttracer_patchlevel = 0;', '\ttrace_buffering_scheme = "global";',
           '\ttrace_name = "syscalls";', '\ttrace_creation_datetime = "20231114T221320+0000";', '};', '',
           'clock {', '\tname = "monotonic";', '\tdescription = "Monotonic Clock";',
           '\tfreq = 1000000000;', '\tprecision = 1;', '\toffset_s = %d;' % (T0 // 10**9),
           '\toffset = 0;', '\tabsolute = FALSE;', '};', '',
           'typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } := uint32_clock_monotonic_t;',
           'typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;', '',
           'struct packet_context {', '\tuint64_clock_monotonic_t timestamp_begin;',
           '\tuint64_clock_monotonic_t timestamp_end;', '\tuint64_t content_size;',
           '\tuint64_t packet_size;', '\tuint64_t packet_seq_num;',
           '\tunsigned long events_discarded;', '\tuint32_t cpu_id;', '};', '',
           'struct event_header_large {',
           '\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;',
           '\tvariant <id> {', '\t\tstruct {', '\t\t\tuint32_clock_monotonic_t timestamp;',
           '\t\t} compact;', '\t\tstruct {', '\t\t\tuint32_t id;',
           '\t\t\tuint64_clock_monotonic_t timestamp;', '\t\t} extended;', '\t} v;',
           '} align(8);', '',
           'stream {', '\tid = 0;', '\tevent.header := struct event_header_large;',
           '\tpacket.context := struct packet_context;', '};', '']
    for n in NAMES:
        out += ['event {', '\tname = "%s";' % n, '\tid = %d;' % IDS[n], '\tstream_id = 0;',
                '\tfields := struct {'] + [decl(f, k) for f, k in EVENTS[n]] + ['\t};', '};', '']
    return "\n".join(out)


# -- streams ---------------------------------------------------------------

def payload(name, values):
    b = b""
    for f, kind in EVENTS[name]:
        v = values.get(f, 0)
        if kind is STR:
            b += (v or "").encode() + b"\0"
        elif kind is COMM:
            b += (v or "").encode()[:15].ljust(16, b"\0")
        else:
            b += struct.pack(kind[1], v)
    return b


def stream(cpu, events):
    body = b""
    for ts, _, name, values in events:
        body += struct.pack("<HIQ", 65535, IDS[name], ts) + payload(name, values)
    head = 4 + 16 + 4 + 8 + 8 * 6 + 4
    content = head + len(body)
    size = (content + 4095) // 4096 * 4096
    begin, end = events[0][0], events[-1][0]
    pkt = struct.pack("<I16sIQ", MAGIC, UUID, 0, cpu)
    pkt += struct.pack("<QQQQQQI", begin, end, content * 8, size * 8, 0, 0, cpu)
    return (pkt + body).ljust(size, b"\0")


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "metadata"), "w") as f:
        f.write(metadata())
    for cpu in (0, 1):
        evs = sorted((e for e in TIMELINE if e[1] == cpu), key=lambda e: e[0])
        with open(os.path.join(OUT, "channel0_%d" % cpu), "wb") as f:
            f.write(stream(cpu, evs))


if __name__ == "__main__":
    main()
