#!/bin/sh
# kallsyms-for.sh IPS: the lines of /proc/kallsyms that the kernel addresses
# in file IPS (one per line, as perf script -F ip prints them) need: each
# address's symbol (the last one at or below it), the one after it (which
# ends it), and _text. Used by the record.sh scripts (run as root).
awk '$2 ~ /^[tTwW]$/ || $3 == "_text"' /proc/kallsyms | sort -k1,1 > "$1.ksyms"
awk 'NR==FNR { if (length($1) == 16 && $1 ~ /^ff/) ip[$1] = 1; next }
     { a[n] = $1; l[n] = $0; n++ }
     END { for (i = 0; i < n; i++) {
             if (l[i] ~ / _text$/) keep[i] = 1
             for (x in ip) if (a[i] <= x && (i+1 == n || a[i+1] > x)) { keep[i] = 1; keep[i+1] = 1 }
           }
           for (i = 0; i < n; i++) if (keep[i]) print l[i] }' \
    "$1" "$1.ksyms"
rm -f "$1.ksyms"
