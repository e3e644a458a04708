# Sourced by bin/sandbox: the start-up cache of `bin/sandbox run`, `probe` and `mcp` (JDK 25's ahead-of-time cache, JEP 483/514/515).
#
# What it is: a copy of the JDK made with jlink, without the JDK's empty jdk.graal.compiler module (so the
# Graal compiler jars go on the plain --module-path: the JVM refuses an AOT cache with --upgrade-module-path),
# and per language an AOT cache (classes loaded and linked, method profiles) recorded by running a small
# trusted program through the CLI itself with the same JVM flags. Everything lives under
# $SANDBOX_STARTUP_DIR, by default src/cli/target/startup in a clone (so `mvn clean` removes it) and, in
# the unpacked distribution, $XDG_CACHE_HOME (else ~/.cache) /polyglot-sandbox/startup/DIRNAME-HASH, a
# directory per unpack location (DIRNAME names the version), never the unpacked directory itself.
#
# Never stale: a cache is used only under the key it was made with, a SHA-256 over this file and
# bin/sandbox, the JDK (its release file, lib/modules and libjvm), the JVM flags, every class-path jar
# and JIT jar (path, size, modification time) and every class file of the class path's directories, the
# library, MCP and CLI modules' in a clone (path, size, modification time). A build that changes any of them makes a new key; the old caches are
# deleted when the new one is made. `mcp --http` runs with other JVM flags than the rest (C2 on), so its
# caches are kept apart (app-server-*, app-job-*) and only a profile's own old ones are deleted.
# The JVM checks the jars' sizes and times again itself.
# Falls back cleanly: no JDK 25, no jlink, a failed recording, a cache the JVM cannot map: the run
# starts the usual way (slower), and only the failed making prints one line on stderr.
#
# SANDBOX_STARTUP_CACHE=0 never uses or makes one; =1 makes one even with SANDBOX_SKIP_BUILD=1 (which
# otherwise only uses a cache that is ready).

# Prints js or python for the arguments of `sandbox run ...`, or nothing if they do not say; python for
# `sandbox probe ...` and `sandbox mcp ...`, which start both languages and whose Python half is the
# longer one (classes the Python cache lacks, JavaScript's among them, load the usual way).
startup_cache_language() {
  case "${1:-}" in
    run) ;;
    probe|mcp) echo python; return 0 ;;
    *) return 0 ;;
  esac
  shift
  local lang="" file="" a
  while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
      --lang) lang=${1:-}; [ $# -gt 0 ] && shift ;;
      --lang=*) lang=${a#--lang=} ;;
      --mount|--timeout|--max-statements|--policy|--result-schema|--output-file|--file|--output-dir|--audit-log\
        |--python-path|--attribute|--isolation)
        [ $# -gt 0 ] && shift ;;
      -h|--help|-V|--version) return 0 ;;
      --) [ -z "$file" ] && file=${1:-}; break ;;
      -*) ;;
      *) [ -z "$file" ] && file=$a ;;
    esac
  done
  if [ -z "$lang" ]; then
    case "${file,,}" in
      *.js|*.mjs) lang=js ;;
      *.py) lang=python ;;
    esac
  fi
  case "${lang,,}" in
    js|javascript) echo js ;;
    python) echo python ;;
  esac
}

# Prints "key runtime-key": the build's key and the JDK's, both hex. $1: the JVM flags, one per line.
startup_cache_keys() {
  local flags=$1 jdk
  jdk=$( { cat "$JAVA_HOME/release" 2>/dev/null
    stat -L -c '%n %s %Y' "$JAVA_HOME/lib/modules" "$JAVA_HOME/lib/server/libjvm.so" 2>/dev/null
    echo "$JAVA_HOME"; } | sha256sum | cut -c1-16)
  local build
  build=$( { echo "startup-cache v1 jdk $jdk"
    sha256sum "$here/sandbox" "$here/startup-cache.sh" | cut -c1-64
    printf '%s\n' "$flags"
    tr ':' '\n' <<<"$classpath" | while IFS= read -r entry || [ -n "$entry" ]; do
      if [ -d "$entry" ]; then
        echo "directory $entry"
        (cd "$entry" && find . -type f -printf '%p %s %T@\n' | LC_ALL=C sort)
      elif [ -n "$entry" ]; then
        stat -L -c '%n %s %Y' "$entry" 2>/dev/null || echo "missing $entry"
      fi
    done
    stat -L -c '%n %s %Y' "$jit_dir"/*.jar; } | sha256sum | cut -c1-24)
  echo "$build $jdk"
}

# The jlinked runtime for the JDK key $1 under $2, made if missing; prints its path or fails.
startup_cache_runtime() {
  local jdk_key=$1 root=$2 runtime="$2/jdk-$1" modules
  if [ -x "$runtime/bin/java" ] && [ -f "$runtime/.complete" ]; then
    echo "$runtime"; return 0
  fi
  [ -x "$JAVA_HOME/bin/jlink" ] || { echo "the JDK has no jlink" >&2; return 1; }
  rm -rf "$runtime" "$runtime.tmp"
  # Every module of the JDK but the empty Graal compiler (the jit jars provide it) and what needs jlink.
  modules=$("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//' \
    | grep -v -e '^jdk\.graal\.compiler' -e '^jdk\.jlink$' -e '^jdk\.jpackage$' -e '^jdk\.incubator\.' | paste -sd, -)
  "$JAVA_HOME/bin/jlink" --add-modules "$modules" --no-man-pages --output "$runtime.tmp" >&2 || return 1
  touch "$runtime.tmp/.complete"
  mv "$runtime.tmp" "$runtime"
  # Runtimes of other JDKs are no longer needed.
  find "$root" -mindepth 1 -maxdepth 1 -name 'jdk-*' ! -name "jdk-$jdk_key" -exec rm -rf {} + 2>/dev/null || true
  echo "$runtime"
}

# A trusted program like a small task, for recording: $1 is js or python.
startup_cache_training_program() {
  case "$1" in
    js) printf '%s\n' "const rows = [];" \
      "for (let i = 0; i < 50; i++) rows.push({id: i, price: i % 13 + 0.5, qty: i % 7});" \
      "console.log('training');" \
      "({n: rows.length, total: rows.reduce((t, r) => t + r.price * r.qty, 0), first: rows[0]})" ;;
    python) printf '%s\n' "rows = [{'id': i, 'price': i % 13 + 0.5, 'qty': i % 7} for i in range(50)]" \
      "print('training')" \
      "{'n': len(rows), 'total': sum(r['price'] * r['qty'] for r in rows), 'first': rows[0]}" ;;
  esac
}

# Makes the cache for language $1 in directory $2 with runtime $3 and JVM flags $4... ; fails if it cannot.
startup_cache_make() {
  local lang=$1 dir=$2 runtime=$3 ext
  shift 3
  mkdir -p "$dir/app"
  if [ ! -f "$dir/app/.complete" ]; then
    # The JVM archives classes from jars only, so the three modules' classes go into jars of their own.
    # A directory with META-INF/versions (the library's JDK 22 seccomp class) makes a multi-release jar:
    # in a plain one the JVM never loads those classes, and process isolation's workers could not start.
    local i=0 entry
    : >"$dir/app/classpath.tmp"
    printf 'Multi-Release: true\n' >"$dir/app/multi-release.mf"
    while IFS= read -r entry || [ -n "$entry" ]; do
      case "$entry" in
        ''|*.pom) continue ;;
      esac
      if [ -d "$entry" ]; then
        i=$((i + 1))
        local manifest=()
        [ -d "$entry/META-INF/versions" ] && manifest=(--manifest "$dir/app/multi-release.mf")
        "$runtime/bin/jar" --create --file "$dir/app/classes-$i.jar" ${manifest[@]+"${manifest[@]}"} -C "$entry" . || return 1
        entry="$dir/app/classes-$i.jar"
      fi
      printf '%s\n' "$entry" >>"$dir/app/classpath.tmp"
    done < <(tr ':' '\n' <<<"$classpath")
    paste -sd: - <"$dir/app/classpath.tmp" >"$dir/app/classpath"
    rm -f "$dir/app/classpath.tmp"
    touch "$dir/app/.complete"
  fi
  [ "$lang" = js ] && ext=js || ext=py
  startup_cache_training_program "$lang" >"$dir/training.$ext"
  rm -f "$dir/$lang.aot" "$dir/$lang.aot.tmp"
  # The recording run is an ordinary `run` of the training program; at exit the JVM assembles the cache.
  if ! (cd "$dir" && "$runtime/bin/java" "$@" -XX:AOTCacheOutput="$dir/$lang.aot.tmp" \
      -cp "$(cat "$dir/app/classpath")" org.polyglotsandbox.cli.SandboxCli run "training.$ext" --json \
      >"$dir/$lang.training.log" 2>&1); then
    return 1
  fi
  grep -q '"outcome":"OK"' "$dir/$lang.training.log" && [ -s "$dir/$lang.aot.tmp" ] || return 1
  mv -f "$dir/$lang.aot.tmp" "$dir/$lang.aot"
}

# Sets startup_java and startup_args (the JVM flags and class path to exec with) when a cache for the
# command in "$@" is ready or can be made now; returns 1 (and leaves them unset) otherwise.
# Needs: JAVA_HOME, here, classpath (colon-separated), jit_dir, startup_root (the default directory),
# jdk_version, jvm_flags (the usual flags), jit_profile (job or server).
startup_cache_prepare() {
  [ "${SANDBOX_STARTUP_CACHE:-}" != 0 ] && [ "$jdk_version" -ge 25 ] || return 1
  local lang
  lang=$(startup_cache_language "$@")
  [ -n "$lang" ] || return 1
  command -v sha256sum >/dev/null 2>&1 || return 1
  local root="${SANDBOX_STARTUP_DIR:-$startup_root}"
  # The usual flags, but the JIT jars on the module path (an AOT cache refuses --upgrade-module-path),
  # and the JVM's own warnings on stderr, never stdout (--json keeps stdout to one JSON object). The
  # AOT messages are off: a cache the JVM cannot use is a slower start, not an error.
  local flags=() f
  for f in "${jvm_flags[@]}"; do
    case "$f" in
      --upgrade-module-path=*) flags+=("--module-path=${f#--upgrade-module-path=}" --add-modules=ALL-MODULE-PATH) ;;
      *) flags+=("$f") ;;
    esac
  done
  flags+=(-Xlog:disable -Xlog:all=warning,aot*=off,cds*=off:stderr)
  # shellcheck disable=SC2206 # SANDBOX_JAVA_OPTS is a list of options
  flags+=(${SANDBOX_JAVA_OPTS:-})
  local keys key jdk_key
  keys=$(startup_cache_keys "$(printf '%s\n' "${flags[@]}")") || return 1
  key=${keys% *}
  jdk_key=${keys#* }
  # `mcp --http` (a server, other JVM flags) and the rest keep a cache each: making one must not delete
  # the other's as stale.
  local profile=${jit_profile:-job}
  local dir="$root/app-$profile-$key" runtime="$root/jdk-$jdk_key"
  if ! { [ -s "$dir/$lang.aot" ] && [ -f "$runtime/.complete" ] && [ -f "$dir/app/.complete" ]; }; then
    if [ -f "$dir/$lang.failed" ]; then
      return 1 # tried for this build already; the reason is in that file
    fi
    if [ "${SANDBOX_SKIP_BUILD:-}" = 1 ] && [ "${SANDBOX_STARTUP_CACHE:-}" != 1 ]; then
      return 1
    fi
    mkdir -p "$root" || return 1
    exec 8>"$root/.lock"
    command -v flock >/dev/null 2>&1 && flock 8
    if ! [ -s "$dir/$lang.aot" ]; then
      echo "sandbox: making the start-up cache for $lang (once per build and language; SANDBOX_STARTUP_CACHE=0 skips it)..." >&2
      local made=0
      if runtime=$(startup_cache_runtime "$jdk_key" "$root" 2>"$root/jlink.log"); then
        startup_cache_make "$lang" "$dir" "$runtime" "${flags[@]}" && made=1
      fi
      if [ "$made" = 0 ]; then
        mkdir -p "$dir"
        { echo "the start-up cache could not be made; see $root/jlink.log and $dir/$lang.training.log"; } >"$dir/$lang.failed"
        echo "sandbox: $(cat "$dir/$lang.failed"); starting without it" >&2
        exec 8>&-
        return 1
      fi
      # Caches of earlier builds are stale now (and those named before the profiles were).
      find "$root" -mindepth 1 -maxdepth 1 \( -name "app-$profile-*" ! -name "app-$profile-$key" \
        -o -name 'app-*' ! -name 'app-job-*' ! -name 'app-server-*' \) -exec rm -rf {} + 2>/dev/null || true
    fi
    exec 8>&-
  fi
  startup_java="$runtime/bin/java"
  startup_args=("${flags[@]}" -XX:AOTCache="$dir/$lang.aot" -cp "$(cat "$dir/app/classpath")")
}
