#!/usr/bin/env bash
# Start-up of `bin/sandbox run` against a raw GraalVM program: a recorded harness,
# not JMH (each sample is a new JVM). Never a CI gate; record results in docs/performance.md.
#
# Usage: benchmarks/startup.sh [ROUNDS [LANGUAGES]]     default: 5 rounds, "js python"
#
# Each round runs, per language, one sample of each design in an order that rotates from round to
# round (so no design always runs first, after a quiet moment, or last):
#   jvm       the JVM alone with the same flags and class path, printing 6*7 from Java (RawStartup none)
#   raw       RawStartup: Context.create(lang), eval "6*7", print, close; the JDK with the JVM flags
#             bin/sandbox gives `run` (--upgrade-module-path, C1 only) and the CLI's class path
#   rawtiered the same with the JVM's default tiers (C2 on)
#   nocache   SANDBOX_STARTUP_CACHE=0 bin/sandbox run six.<ext> (the JDK, --upgrade-module-path)
#   sandbox   bin/sandbox run six.<ext> as a user runs it (the start-up cache: jlinked JDK + AOT cache)
# Each sample is timed with /usr/bin/time -v (elapsed to exit, peak RSS) and, from the harness, to the
# moment the value line ("value: 42") reaches the pipe. The load average is printed with every round.
# Before the rounds (not timed): bin/sandbox builds the CLI if stale, and makes each language's
# start-up cache. Raw samples go to benchmarks/target/startup/samples.tsv.
set -euo pipefail
bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$bench")
. "$root/bin/jdk.sh"
JAVA_HOME=$(polyglot_sandbox_find_jdk) || exit 2
export JAVA_HOME
rounds=${1:-5}
languages=${2:-js python}
out="$bench/target/startup"
mkdir -p "$out/classes"
target="$root/src/cli/target"

printf '6*7\n' >"$out/six.js"
printf '6*7\n' >"$out/six.py"
echo "startup.sh: preparing (build, start-up caches; not timed)" >&2
for lang in $languages; do
  ext=$([ "$lang" = js ] && echo js || echo py)
  "$root/bin/sandbox" run "$out/six.$ext" >/dev/null
done
"$JAVA_HOME/bin/javac" -d "$out/classes" -cp "$(cat "$target/runtime-classpath.txt")" \
  "$bench/src/main/java/org/polyglotsandbox/benchmarks/RawStartup.java"
raw_cp="$out/classes:$target/classes:$(cat "$target/runtime-classpath.txt")"
tiered=(-XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI "--upgrade-module-path=$target/jit"
  --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
flags=("${tiered[@]}" -XX:TieredStopAtLevel=1) # what bin/sandbox gives every command but mcp --http

# One sample: prints "to_value_ms elapsed_s peak_rss_kb exit"; $@ is the command.
sample() {
  local start first=0 line
  start=$(date +%s%N)
  while IFS= read -r line; do
    case "$line" in
      "value: 42"*) [ "$first" = 0 ] && first=$(date +%s%N) ;;
    esac
  done < <(/usr/bin/time -v -o "$out/time.txt" "$@" 2>"$out/stderr.txt")
  wait $! 2>/dev/null || true
  local elapsed rss status
  elapsed=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt" \
    | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")
  status=$(sed -n 's/.*Exit status: //p' "$out/time.txt")
  if [ "$first" = 0 ]; then
    echo "startup.sh: no value line from: $* (exit $status); stderr:" >&2
    cat "$out/stderr.txt" >&2
    exit 1
  fi
  echo "$(( (first - start) / 1000000 )) $elapsed $rss $status"
}

run_design() { # $1 design, $2 language
  local ext
  ext=$([ "$2" = js ] && echo js || echo py)
  case "$1" in
    jvm) sample "$JAVA_HOME/bin/java" "${flags[@]}" -cp "$raw_cp" org.polyglotsandbox.benchmarks.RawStartup none ;;
    raw) sample "$JAVA_HOME/bin/java" "${flags[@]}" -cp "$raw_cp" org.polyglotsandbox.benchmarks.RawStartup "$2" ;;
    rawtiered) sample "$JAVA_HOME/bin/java" "${tiered[@]}" -cp "$raw_cp" org.polyglotsandbox.benchmarks.RawStartup "$2" ;;
    nocache) SANDBOX_STARTUP_CACHE=0 sample "$root/bin/sandbox" run "$out/six.$ext" ;;
    sandbox) sample "$root/bin/sandbox" run "$out/six.$ext" ;;
  esac
}

designs=(jvm raw rawtiered nocache sandbox)
printf 'round\tlanguage\tdesign\tto_value_ms\telapsed_s\tpeak_rss_kb\texit\tload1\n' >"$out/samples.tsv"
echo "startup.sh: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); $(nproc) cores; $rounds rounds" >&2
for ((r = 1; r <= rounds; r++)); do
  echo "round $r: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for lang in $languages; do
    n=${#designs[@]}
    for ((i = 0; i < n; i++)); do
      d=${designs[$(( (i + r) % n ))]}
      [ "$d" = jvm ] && [ "$lang" != "${languages%% *}" ] && continue # the JVM alone once per round
      load=$(cut -d' ' -f1 /proc/loadavg)
      s=$(run_design "$d" "$lang")
      printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$lang" "$d" "$(echo "$s" | tr ' ' '\t')" "$load" >>"$out/samples.tsv"
      echo "  $lang $d: $s (to value ms, elapsed s, peak RSS KB, exit)" >&2
    done
  done
done
echo "final load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# Medians per language and design, and the ratios to raw.
python3 - "$out/samples.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter='\t'))
med = {}
for r in rows:
    k = (r['language'] if r['design'] != 'jvm' else '-', r['design'])
    med.setdefault(k, []).append(r)
print('| language | design | n | to value, median | elapsed, median | peak RSS, median | to value / raw | elapsed / raw |')
print('|---|---|---|---|---|---|---|---|')
for (lang, design), rs in sorted(med.items()):
    tv = statistics.median(float(r['to_value_ms']) / 1000 for r in rs)
    el = statistics.median(float(r['elapsed_s']) for r in rs)
    rss = statistics.median(float(r['peak_rss_kb']) / 1024 for r in rs)
    ratio = ''
    if (lang, 'raw') in med and design != 'raw':
        raw = med[(lang, 'raw')]
        rtv = statistics.median(float(r['to_value_ms']) / 1000 for r in raw)
        rel = statistics.median(float(r['elapsed_s']) for r in raw)
        ratio = f'{tv / rtv:.2f}x | {el / rel:.2f}x'
    else:
        ratio = ' | '
    print(f'| {lang} | {design} | {len(rs)} | {tv:.2f} s | {el:.2f} s | {rss:.0f} MB | {ratio} |')
EOF
