# fold.awk: the stack-folding rule of FlameGraph's stackcollapse-perf.pl,
# written out for awk, to make reference folded stacks from `perf script`
# output with callchains. Per sample: the comm (spaces made `_`), then the
# frames from the outermost in. A frame's symbol loses its `+0x..` offset;
# `[unknown]` in a known file becomes `[file]` (base name); `;` becomes
# `:`; the text from the first `(` goes unless it opens `(anonymous
# namespace)` or the name looks like a Go method (`.(...).`); `"` and `'`
# go. Identical stacks are counted: `stack count`.
#
#   perf script -i X.data | LC_ALL=C awk -f fold.awk | LC_ALL=C sort
function flush() {
  if (have) n[stack]++
  have = 0; stack = ""
}
function basename(p) { sub(/.*\//, "", p); return p }
/^#/ { next }
/^$/ { flush(); next }
/^[^\t]/ {
  flush()
  # a sample's first line, "    comm  tid [cpu] time: ..." (its frames
  # follow on lines that start with a tab): the comm, which may hold
  # spaces, ends before the first field of digits
  comm = ""
  for (i = 1; i <= NF; i++) { if ($i ~ /^[0-9]+$/) break; comm = comm (comm == "" ? "" : "_") $i }
  stack = comm; have = 1
  next
}
{
  # "\t    ffffffff8168522c page_counter_charge+0x6c ([kernel.kallsyms])"
  line = $0
  sub(/^[ \t]+[0-9a-f]+ /, "", line)
  mod = line; sub(/.* \(/, "", mod); sub(/\)$/, "", mod)
  fn = line; sub(/ \([^ ]*\)$/, "", fn)
  sub(/\+0x[0-9a-f]+$/, "", fn)
  if (fn ~ /^\(/) next
  if (fn == "[unknown]" && mod != "[unknown]") fn = "[" basename(mod) "]"
  gsub(/;/, ":", fn)
  if (fn !~ /\.\(.*\)\./) {
    gsub(/\(anonymous namespace\)/, "\001", fn)
    sub(/\(.*/, "", fn)
    gsub(/\001/, "(anonymous namespace)", fn)
  }
  gsub(/["']/, "", fn)
  # perf prints the innermost frame first
  stack = stack ";" fn
}
END { flush(); for (s in n) print rev(s), n[s] }
function rev(s,   a, k, i, out) {
  k = split(s, a, ";")
  out = a[1]
  for (i = k; i >= 2; i--) out = out ";" a[i]
  return out
}
